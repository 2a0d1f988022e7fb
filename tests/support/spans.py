"""The spans this test process's tracer provider (workers/tracing.py, one per process) starts and ends while a test
watches: other tests of the process may run traced workflows too, unwatched."""

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, SpanProcessor

from workers import tracing


class SpanRecorder(SpanProcessor):
    def __init__(self) -> None:
        self.watching = False
        self.started: list[str] = []
        self.ended: list[ReadableSpan] = []

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        if self.watching:
            self.started.append(span.name)

    def on_end(self, span: ReadableSpan) -> None:
        if self.watching:
            self.ended.append(span)

    def named(self, name: str) -> list[ReadableSpan]:
        return [span for span in self.ended if span.name == name]


@contextmanager
def recorded() -> Iterator[SpanRecorder]:
    """A recorder on the process's tracer provider, watching while the block runs."""
    recorder = SpanRecorder()
    tracing.provider([recorder])
    recorder.watching = True
    try:
        yield recorder
    finally:
        recorder.watching = False
