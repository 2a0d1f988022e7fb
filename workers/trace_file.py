"""Spans as JSON lines in a file, for `azmc trace` on `azmc dev` (no collector needed to look). The file is kept
small: past MAX_BYTES it becomes `<file>.1` (the one before is dropped) and a new one starts."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

MAX_BYTES = 20 * 1024 * 1024


def _hex(value: int, width: int) -> str:
    return format(value, f"0{width}x")


def as_record(span: ReadableSpan) -> dict[str, Any]:
    context = span.get_span_context()
    assert context is not None  # the SDK gives every span it exports a context; only the type allows None
    parent = span.parent
    return {
        "trace_id": _hex(context.trace_id, 32), "span_id": _hex(context.span_id, 16),
        "parent_id": _hex(parent.span_id, 16) if parent is not None else "",
        "name": span.name, "start_ns": span.start_time, "end_ns": span.end_time,
        "status": span.status.status_code.name, "status_message": span.status.description or "",
        "attributes": dict(span.attributes or {}),
        "links": [{"trace_id": _hex(link.context.trace_id, 32), "span_id": _hex(link.context.span_id, 16),
                   "attributes": dict(link.attributes or {})} for link in span.links],
    }


class SpanFile(SpanExporter):
    def __init__(self, path: Path, max_bytes: int = MAX_BYTES) -> None:
        self._path = path
        self._max_bytes = max_bytes
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        lines = "".join(json.dumps(as_record(span), default=str) + "\n" for span in spans)
        with self._lock:
            if self._path.exists() and self._path.stat().st_size > self._max_bytes:
                self._path.replace(self._path.with_name(self._path.name + ".1"))
            with self._path.open("a") as out:
                out.write(lines)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        return None
