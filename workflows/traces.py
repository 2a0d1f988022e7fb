"""A trace per operation of a long-lived workflow (docs/observability.md): each operation (a machine's create,
repair, update or delete; a pool's scale or roll) is a root span of its own, linked to the operation before it (in
this run, or the run it continued from: the SDK's plugin carries the last one's context in the continue-as-new
headers); its steps (an attempt, a backoff, a compensation, a repair step) are child spans, and the activities it
starts are children of the step or operation open when they start (`current`, around every activity start).

Spans come from the SDK's replay-safe tracer provider (workers/tracing.py): ids from the workflow's own random,
no span ended while replaying, so a replay creates none. Nothing secret goes on a span: names, phases, offerings,
Azure's codes. Without the `tracing` extra, or with tracing off, the API hands out spans that record nothing.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    try:
        from opentelemetry import context as otel_context
        from opentelemetry import trace as otel_trace
        from opentelemetry.trace import Link, Status, StatusCode
    except ImportError:  # the `tracing` extra is not installed: nothing is traced
        otel_trace = None  # type: ignore[assignment]  # tracing is an extra: without it the module is None

TRACER = "azmc.workflows"


class _Open:
    def __init__(self, kind: str, span: Any, since: datetime) -> None:
        self.kind, self.span, self.since = kind, span, since
        self.steps: list[Any] = []
        self.notes: dict[str, str] = {}


class Operations:
    """The operations of one workflow run, one open at a time, as spans. `subject`: attributes every operation
    carries (which machine or pool: `azmc.machine` "<resource group>/<name>")."""

    def __init__(self, prefix: str, subject: dict[str, str]) -> None:
        self._prefix, self._subject = prefix, subject
        self._open: _Open | None = None
        # The last operation's span context: the run this one continued from, or a caller's that sent one.
        self._previous: Any = None
        if otel_trace is not None:
            started = otel_trace.get_current_span().get_span_context()
            self._previous = started if started.is_valid else None

    @property
    def kind(self) -> str:
        """The open operation ("" when none)."""
        return self._open.kind if self._open is not None else ""

    @property
    def since(self) -> datetime | None:
        return self._open.since if self._open is not None else None

    def begin(self, kind: str, since: datetime | None = None, **attributes: str) -> None:
        """Open operation `kind` (ending one still open); `since`: when it began, if before this run."""
        if self._open is not None:
            self.end("superseded by " + kind)
        span = None
        if otel_trace is not None:
            links = [Link(self._previous, {"azmc.link": "previous operation"})] if self._previous else []
            span = otel_trace.get_tracer(TRACER).start_span(
                f"{self._prefix}.{kind}", context=otel_context.Context(), links=links,
                attributes={**self._subject, "azmc.operation": kind,
                            **{f"azmc.{key}": value for key, value in attributes.items()}})
        self._open = _Open(kind, span, since or workflow.now())

    @contextmanager
    def beside(self, kind: str, **attributes: str) -> Iterator[None]:
        """Operation `kind` while the block runs, beside the one open (an update while a repair waits), which is
        open again afterwards."""
        held, self._open = self._open, None
        self.begin(kind, None, **attributes)
        try:
            yield
        except BaseException as error:
            self.end("failed", error=type(error).__name__)
            raise
        else:
            self.end("done")
        finally:
            self._open = held

    def ids(self) -> dict[str, str]:
        """The open operation's trace and span ids (hex, as a collector shows them) for a log line; {} when none."""
        opened = self._open
        if opened is None or opened.span is None:
            return {}
        context = opened.span.get_span_context()
        if not context.is_valid:
            return {}
        return {"trace_id": format(context.trace_id, "032x"), "span_id": format(context.span_id, "016x")}

    def note(self, **attributes: str) -> None:
        """What the open operation came to (a repair's step, an offering): on its span, and kept for its end."""
        if self._open is not None:
            self._open.notes.update(attributes)
            if self._open.span is not None:
                self._open.span.set_attributes({f"azmc.{k}": v for k, v in attributes.items()})

    def noted(self, key: str) -> str:
        return self._open.notes.get(key, "") if self._open is not None else ""

    def end(self, outcome: str, error: str = "") -> timedelta | None:
        """Close the open operation; how long it lasted (None when none was open)."""
        done, self._open = self._open, None
        if done is None:
            return None
        if done.span is not None:
            done.span.set_attribute("azmc.outcome", outcome)
            if error:
                done.span.set_status(Status(StatusCode.ERROR, error[:300]))
            done.span.end()
            ended = done.span.get_span_context()
            self._previous = ended if ended.is_valid else self._previous
        return workflow.now() - done.since

    @contextmanager
    def step(self, name: str, **attributes: Any) -> Iterator[None]:
        """A step of the open operation (a child span) while the block runs."""
        opened = self._open
        if opened is None or opened.span is None or not opened.span.is_recording():
            yield
            return
        parent = opened.steps[-1] if opened.steps else opened.span
        span = otel_trace.get_tracer(TRACER).start_span(
            name, context=otel_trace.set_span_in_context(parent), attributes=attributes)
        opened.steps.append(span)
        try:
            yield
        except BaseException as error:
            span.set_status(Status(StatusCode.ERROR, type(error).__name__))
            raise
        finally:
            opened.steps.remove(span)
            span.end()

    @contextmanager
    def current(self) -> Iterator[None]:
        """The innermost step (or the operation) as the current span: an activity started in the block is its
        child. Nothing when no operation is open: a health check's reads are no operation's."""
        opened = self._open
        if opened is None or opened.span is None or not opened.span.is_recording():  # tracing off: nothing to carry
            yield
            return
        with self._attached(opened.steps[-1] if opened.steps else opened.span):
            yield

    @contextmanager
    def carried(self) -> Iterator[None]:
        """The last operation as the current span, so a continue-as-new in the block carries it to the next run."""
        if self._open is not None and self._open.span is not None and self._open.span.is_recording():
            with self._attached(self._open.span):
                yield
        elif otel_trace is not None and self._previous is not None:
            with self._attached(otel_trace.NonRecordingSpan(self._previous)):
                yield
        else:
            yield

    @staticmethod
    @contextmanager
    def _attached(span: Any) -> Iterator[None]:
        token = otel_context.attach(otel_trace.set_span_in_context(span))
        try:
            yield
        finally:
            otel_context.detach(token)
