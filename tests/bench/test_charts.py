"""`make bench`'s charts: SVG files drawn from the results, a pair of bars per lifecycle round and azmc's ARM
requests beside MCM's, each bar as tall as its value."""

import json
import re
import xml.etree.ElementTree as ET

from bench import charts
from bench.lifecycle_rows import Measured
from bench.results_file import row, write_results

SVG = "{http://www.w3.org/2000/svg}"


def _arm_results(directory):
    rows = [row("ARM requests per clean lifecycle", 11, "requests", "<= 13", "MCM 13"),
            row("ARM reads per clean lifecycle", 5, "requests"),
            row("ARM writes+deletes per clean lifecycle", 6, "requests")]
    write_results("arm_requests", rows, directory)


def _bars(svg: str) -> dict[str, list[float]]:
    """Each bar segment's height, by the name its tooltip gives."""
    heights: dict[str, list[float]] = {}
    for rect in ET.fromstring(svg).iter(f"{SVG}rect"):
        title = rect.find(f"{SVG}title")
        if title is not None:
            heights.setdefault(title.text.split(":")[0], []).append(float(rect.get("height")))
    return heights


def test_the_charts_show_each_round_and_the_arm_requests_against_mcm(tmp_path):
    measured = Measured(machines=200, rounds=3, bare_input=None)
    measured.seconds = {"azmc": [20.0, 16.0, 25.0], "bare": [16.0, 16.0, 20.0]}
    write_results("lifecycle", [row("lifecycle rate (create -> Running -> delete)", 12.5, "machines/s", None,
                                    "bare 12.5/s")], tmp_path, series={"rounds": measured.round_rates()})  # fmt: skip
    _arm_results(tmp_path)

    lifecycle, arm = charts.draw(tmp_path, tmp_path / "out")

    rounds = _bars(lifecycle.read_text())
    assert len(rounds["azmc"]) == len(rounds["bare engine"]) == 3
    assert [round(a / b, 2) for a, b in zip(rounds["azmc"], rounds["bare engine"], strict=True)] == [0.8, 1.0, 0.8]
    assert re.findall(r">(round \d)<", lifecycle.read_text()) == ["round 1", "round 2", "round 3"]
    requests = _bars(arm.read_text())
    assert requests["azmc reads"][0] * 6 == requests["azmc writes and deletes"][0] * 5
    assert round(requests["MCM requests"][0] / (requests["azmc reads"][0] + requests["azmc writes and deletes"][0]),
                 3) == round(13 / 11, 3)  # fmt: skip


def test_results_without_rounds_chart_the_best_round(tmp_path):
    write_results("lifecycle", [row("lifecycle rate (create -> Running -> delete)", 14.31, "machines/s", None,
                                    "bare 16.12/s")], tmp_path)  # fmt: skip
    _arm_results(tmp_path)

    lifecycle, _ = charts.draw(tmp_path, tmp_path)

    assert "series" not in json.loads((tmp_path / "lifecycle.json").read_text())
    bars = _bars(lifecycle.read_text())
    assert round(bars["azmc"][0] / bars["bare engine"][0], 3) == round(14.31 / 16.12, 3)
    assert ">best round<" in lifecycle.read_text() and ">0.89<" in lifecycle.read_text()


def test_the_committed_charts_are_the_committed_results(tmp_path):
    """docs/ shows what bench/results holds: `python -m bench.charts` after a bench run redraws them."""
    drawn = charts.draw(out=tmp_path)
    assert [path.read_text() for path in drawn] == [(charts.DOCS / path.name).read_text() for path in drawn]
