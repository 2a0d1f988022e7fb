"""Worker log lines are structured (logfmt or JSON), one event per line, with the SDK's context as fields."""

import json
import logging

import pytest

from workers.logs import JsonFormatter, LogfmtFormatter
from workers.settings import SettingsError, load_settings


def _record(message: str, **extra: object) -> logging.LogRecord:
    record = logging.makeLogRecord({"name": "azmc.worker", "levelname": "INFO", "msg": message})
    record.__dict__.update(extra)
    return record


def test_logfmt_quotes_values_and_flattens_the_sdk_context() -> None:
    line = LogfmtFormatter().format(_record(
        "phase Pending -> Creating", temporal_workflow={"workflow_id": "machine/rg/vm1", "attempt": 1},
        azmc_machine="vm1",
    ))  # fmt: skip
    assert "\n" not in line
    assert 'msg="phase Pending -> Creating"' in line
    assert "workflow.workflow_id=machine/rg/vm1 workflow.attempt=1 azmc_machine=vm1" in line
    assert line.startswith("ts=") and " level=info logger=azmc.worker " in line


def test_json_lines_parse() -> None:
    fields = json.loads(JsonFormatter().format(_record("worker started", task_queue="azmc")))
    assert fields["msg"] == "worker started" and fields["task_queue"] == "azmc" and fields["level"] == "info"


def test_an_exception_is_one_line(caplog: pytest.LogCaptureFixture) -> None:
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = _record("failed")
        import sys

        record.exc_info = sys.exc_info()
    line = LogfmtFormatter().format(record)
    assert "\n" not in line and "error=\"RuntimeError: boom\"" in line


@pytest.mark.parametrize("hostile", ["vm1\nts=0 level=error msg=forged", "vm1\rx", "a\x1b[31mred", "tab\there",
                                     "back\\slash"])
def test_hostile_values_cannot_forge_lines_or_escape_codes(hostile: str) -> None:
    line = LogfmtFormatter().format(_record(f"deleting {hostile}", azmc_machine=hostile))
    assert "\n" not in line and "\r" not in line and "\x1b" not in line and "\t" not in line
    assert f"azmc_machine={json.dumps(hostile)}" in line  # quoted, JSON-escaped: the value reads back exactly


def test_the_log_level_is_read_in_any_case_and_an_unknown_one_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZMC_LOG_LEVEL", "DEBUG")
    assert load_settings().log_level == "debug"
    monkeypatch.setenv("AZMC_LOG_LEVEL", "verbose")
    with pytest.raises(SettingsError, match="AZMC_LOG_LEVEL"):
        load_settings()
