"""The worker's side of a machine operation's trace (docs/observability.md): a span per activity attempt, per
ARM request (azure-core's own, named and given Azure's request ids here), per wait for ARM's pace or a 429's
Retry-After, and per wait on the shared status reads, linked to the read that answered it.

Every span here is a child of the operation the workflow opened (its context arrives in the activity's headers
through the Temporal SDK's OpenTelemetry plugin); without one (a health check, the sweep) nothing is recorded:
the sampler (workers/tracing.py) drops a span without a parent unless it opens an operation. Without the
`tracing` extra, or with tracing off, every helper is a no-op that costs a call.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from azure.core.pipeline import PipelineRequest, PipelineResponse
from azure.mgmt.core.policies import ARMHttpLoggingPolicy
from temporalio import activity
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from activities.request_count import operation_name

try:
    from opentelemetry import context as otel_context
    from opentelemetry import trace as otel_trace
    from opentelemetry.trace import Status, StatusCode
except ImportError:  # the `tracing` extra is not installed
    otel_trace = None  # type: ignore[assignment]  # tracing is an extra: without it the module is None

TRACER = "azmc.activities"
# Roots the sampler keeps: the shared status reads belong to no machine, and each is a trace of its own.
SHARED_READ = "vm_statuses.read"
# What azure-core's span of a request holds (DistributedTracingPolicy.TRACING_CONTEXT).
_AZURE_SPAN = "TRACING_CONTEXT"
_CORRELATION = "x-ms-correlation-request-id"
MAX_CODE = 64


def _tracer() -> Any:
    return otel_trace.get_tracer(TRACER)


def traced() -> bool:
    """Is this task inside a sampled operation's trace? False without the extra or outside one."""
    return otel_trace is not None and otel_trace.get_current_span().get_span_context().is_valid


@contextmanager
def span(name: str, attributes: dict[str, Any] | None = None) -> Iterator[Any]:
    """A child of the current span while the block runs; nothing outside an operation's trace."""
    if not traced():
        yield None
        return
    with _tracer().start_as_current_span(name, attributes=attributes or {}) as current:
        yield current


def waited(name: str, started_ns: int, attributes: dict[str, Any]) -> None:
    """A wait that is over (since `started_ns`, time.time_ns()) as a span of the current operation: only waits
    that happened are recorded, so a request that went at once costs nothing."""
    if traced():
        _tracer().start_span(name, attributes=attributes, start_time=started_ns).end()


@contextmanager
def root(name: str, attributes: dict[str, Any]) -> Iterator[Any]:
    """A span that starts a trace of its own, whatever task started it (the shared status reads)."""
    if otel_trace is None:
        yield None
        return
    with _tracer().start_as_current_span(name, context=otel_context.Context(), attributes=attributes) as current:
        yield current


def context_of(current: Any) -> Any:
    """What a link to `current` needs; None when it is not recorded."""
    if current is None or not current.get_span_context().is_valid:
        return None
    return current.get_span_context()


def link(current: Any, target: Any, attributes: dict[str, Any] | None = None) -> None:
    if current is not None and target is not None:
        current.add_link(target, attributes or {})


class _ActivitySpans(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        if not traced():
            return await super().execute_activity(input)
        info = activity.info()
        attributes = {"temporal.activity.type": info.activity_type, "temporal.activity.attempt": info.attempt,
                      "temporal.activity.local": info.is_local, "temporal.workflow.id": info.workflow_id or ""}
        with _tracer().start_as_current_span(f"activity {info.activity_type}", attributes=attributes,
                                             record_exception=False, set_status_on_exception=False) as current:
            try:
                return await super().execute_activity(input)
            except Exception as error:
                kind = getattr(error, "type", None) or type(error).__name__
                current.set_attribute("azmc.error_type", str(kind))
                details = getattr(error, "details", None)
                code = details[0].get("code") if details and isinstance(details[0], dict) else None
                if code:
                    current.set_attribute("azure.error.code", str(code)[:MAX_CODE])
                current.set_status(Status(StatusCode.ERROR, str(error)[:200]))
                raise


class ActivitySpans(Interceptor):
    """A span per activity attempt inside an operation's trace (the attempt number, the error type it ended in).
    After the SDK plugin's interceptor, which attaches the context the workflow sent."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _ActivitySpans(next)


def request_span_name(request: Any) -> str:
    """azure-core's span of a request, named as the emulator and the request counts name it: `virtualMachines.put`."""
    return operation_name(request.method, request.url)


class AzureIdsPolicy(ARMHttpLoggingPolicy):
    """ARM's logging policy (still off unless asked: logging_enable), which runs after azure-core's tracing policy:
    so a request's span also gets ARM's correlation id before it ends. azure-core itself puts x-ms-request-id on it
    (az.service_request_id). The body is not read here (an async answer's is not loaded yet): Azure's error code
    goes on the activity's span, from the error the activity ends in."""

    def on_response(self, request: PipelineRequest, response: PipelineResponse) -> None:
        current = request.context.get(_AZURE_SPAN)
        correlation = response.http_response.headers.get(_CORRELATION)
        if correlation and current is not None and hasattr(current, "set_attribute"):
            current.set_attribute("az.correlation_request_id", correlation)
        super().on_response(request, response)


def now_ns() -> int:
    return time.time_ns()
