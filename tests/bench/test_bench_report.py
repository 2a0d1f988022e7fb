"""`make bench`'s one table: every module's results file is read, in reading order, and latest.json holds them all."""

import json

from bench import report
from bench.results_file import LATEST, row, write_results


def test_every_results_file_lands_in_one_table_and_latest(tmp_path, capsys, monkeypatch):
    write_results("watch_cost", [row("ARM reads/h, 1,000 machines", 227.0, "reads/h", None, "today 6,000")], tmp_path)
    write_results("lifecycle", [row("rate ratio azmc / bare", 0.8312, "", ">= 0.8", "bare 1.0", "same run")], tmp_path)
    write_results("zz_future_module", [row("anything", 3, "things")], tmp_path)  # a module nobody knows yet
    monkeypatch.setattr("sys.argv", ["bench.report", "--results", str(tmp_path)])

    report.main()

    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("measured on ") and "cores" in lines[0] and "temporalio" in lines[0]
    body = [line for line in lines[3:] if ":" in line and not line.startswith("(written")]
    assert [line.split(":")[0] for line in body] == ["lifecycle", "watch_cost", "zz_future_module"]
    assert ">= 0.8" in body[0] and "0.83" in body[0] and "bare 1.0" in body[0]
    assert "227 reads/h" in body[1] and "today 6,000" in body[1]
    latest = json.loads((tmp_path / LATEST).read_text())
    assert {r["module"] for r in latest["rows"]} == {"lifecycle", "watch_cost", "zz_future_module"}
    assert set(latest["modules"]) == {"lifecycle", "watch_cost", "zz_future_module"}

    monkeypatch.setattr("sys.argv", ["bench.report", "--results", str(tmp_path)])
    report.main()  # latest.json itself is never read back as a module
    again = [line for line in capsys.readouterr().out.splitlines()[3:] if ":" in line and "(written" not in line]
    assert again == body


def test_results_file_has_the_shared_shape(tmp_path):
    path = write_results("arm_requests", [{"metric": "requests", "value": 13, "unit": "requests"}], tmp_path)

    document = json.loads(path.read_text())

    assert path.name == "arm_requests.json"
    assert set(document) == {"module", "machine", "when", "rows"}
    assert document["rows"] == [{"metric": "requests", "value": 13, "unit": "requests", "goal": None, "peer": None,
                                 "note": ""}]
