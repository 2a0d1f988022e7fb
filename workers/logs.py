"""Structured log lines: logfmt (`ts=... level=... msg=... key=value`) or JSON, one event per line.

Fields passed through `extra={...}` become keys, so a line can be grepped and parsed by log shippers.
"""

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

import temporalio.activity
import temporalio.workflow

try:
    from opentelemetry import trace as otel_trace
except ImportError:  # the `tracing` extra is not installed: no line carries trace ids
    otel_trace = None  # type: ignore[assignment]  # tracing is an extra: without it the module is None

_STANDARD = set(vars(logging.makeLogRecord({}))) | {"message", "asctime"}


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
        "level": record.levelname.lower(),
        "logger": record.name,
        "msg": record.getMessage(),
    }
    for key, value in vars(record).items():
        if key in _STANDARD or key.startswith("_"):
            continue
        if isinstance(value, dict):  # the SDK's `temporal_workflow` / `temporal_activity` context
            prefix = key.removeprefix("temporal_")
            fields.update({f"{prefix}.{inner}": inner_value for inner, inner_value in value.items()})
        else:
            fields[key] = value
    if record.exc_info:
        fields["error"] = logging.Formatter().formatException(record.exc_info).splitlines()[-1]
    if otel_trace is not None and "trace_id" not in fields:  # a line said inside a traced operation's span
        context = otel_trace.get_current_span().get_span_context()
        if context.is_valid:
            fields["trace_id"], fields["span_id"] = format(context.trace_id, "032x"), format(context.span_id, "016x")
    return fields


def _logfmt_value(value: Any) -> str:
    text = str(value)
    # Quoted (JSON-escaped) when a value could break the line: a newline or terminal escape in a name
    # or in Azure's message must not forge a second log line or recolour the terminal.
    if not text or any(ch in text for ch in ' "=\\') or not text.isprintable():
        return json.dumps(text)
    return text


class LogfmtFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return " ".join(f"{key}={_logfmt_value(value)}" for key, value in _fields(record).items())


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return json.dumps(_fields(record), default=str)


def setup_logging(log_format: str = "text", level: int | str = logging.INFO) -> None:
    """`level`: a logging level, or its name in any case ("info")."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else LogfmtFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper() if isinstance(level, str) else level)
    # The Azure SDK logs every HTTP request at INFO; keep worker logs about machines, not transport.
    logging.getLogger("azure").setLevel(logging.WARNING)
    # The SDK's workflow/activity context arrives as structured fields; do not repeat it inside `msg`.
    temporalio.workflow.logger.workflow_info_on_message = False
    temporalio.activity.logger.activity_info_on_message = False
