"""Record every Azure request an activity attempt makes (a pipeline policy) and hand them to history.

The worker's AuditInterceptor gives each attempt its own list (a ContextVar the SDK's pipeline sees) and,
when the worker's payload converter can carry it (codec.converter.AzmcPayloadConverter), returns the
result as `Audited` and adds the requests to a failure's details. Never recorded: bodies and headers
other than Azure's two request ids (the bearer token, custom_data stay out).
"""

import time
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

from azure.core.pipeline import PipelineRequest, PipelineResponse
from azure.core.pipeline.policies import SansIOHTTPPolicy
from temporalio.converter import DataConverter
from temporalio.exceptions import ApplicationError
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from activities.request_count import operation_name
from models.audit import AUDIT_DETAIL, MAX_REQUESTS, Audited, AuditTrail, AzureRequest

_CURRENT: ContextVar[list[AzureRequest] | None] = ContextVar("azmc_azure_requests", default=None)
_STARTED = "azmc_audit_started"


def _record(request: PipelineRequest, status: int, headers: Any) -> None:  # type: ignore[type-arg]
    requests = _CURRENT.get()
    if requests is None:
        return
    http = request.http_request
    started = request.context.get(_STARTED) or time.monotonic()
    requests.append(AzureRequest(
        method=http.method, operation=operation_name(http.method, http.url), resource=urlsplit(http.url).path[:300],
        status=status, duration_ms=round((time.monotonic() - started) * 1000),
        request_id=(headers or {}).get("x-ms-request-id", "")[:100],
        correlation_id=(headers or {}).get("x-ms-correlation-request-id", "")[:100],
    ))


class AuditPolicy(SansIOHTTPPolicy):  # type: ignore[type-arg]
    """Per retry (beside RequestCountingPolicy): an SDK-level retry is a request of its own."""

    def on_request(self, request: PipelineRequest) -> None:  # type: ignore[type-arg]
        request.context[_STARTED] = time.monotonic()

    def on_response(self, request: PipelineRequest, response: PipelineResponse) -> None:  # type: ignore[type-arg]
        _record(request, response.http_response.status_code, response.http_response.headers)

    def on_exception(self, request: PipelineRequest) -> None:  # type: ignore[type-arg]
        _record(request, 0, {})


def trail(requests: list[AzureRequest]) -> AuditTrail:
    return AuditTrail(requests=requests[-MAX_REQUESTS:], left_out=max(0, len(requests) - MAX_REQUESTS))


def _with_write_request_id(message: str, requests: list[AzureRequest]) -> str:
    """A failed long-running operation is reported by a status poll: name the request id of the write
    (PUT, PATCH, DELETE, POST) that started it too, which is the one an Azure support ticket needs."""
    polls = [i for i, r in enumerate(requests) if r.operation == "operations.poll"]
    before = requests[: polls[-1]] if polls else requests  # the write the failing poll was about
    writes = [r for r in before if r.method != "GET" and r.request_id]
    if not writes or writes[-1].request_id in message:
        return message
    last = writes[-1]
    return f"{message} ({last.operation} request id {last.request_id})"


class _AuditActivity(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, carries: bool) -> None:
        super().__init__(next)
        self._carries = carries

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        requests: list[AzureRequest] = []
        _CURRENT.set(requests)
        try:
            result = await super().execute_activity(input)
        except ApplicationError as err:
            if not self._carries:
                raise
            audit = trail(requests).model_dump(mode="json")
            raise ApplicationError(
                _with_write_request_id(err.message, requests), *err.details, {AUDIT_DETAIL: audit}, type=err.type,
                non_retryable=err.non_retryable, next_retry_delay=err.next_retry_delay, category=err.category,
            ) from err.__cause__
        finally:
            _CURRENT.set(None)
        return Audited(result, trail(requests)) if self._carries else result


class AuditInterceptor(Interceptor):
    """`data_converter`: the worker client's; only azmc's converter carries the trail (else: recorded, not sent)."""

    def __init__(self, data_converter: DataConverter) -> None:
        from codec.converter import AzmcPayloadConverter

        kind = data_converter.payload_converter_class
        self._carries = isinstance(kind, type) and issubclass(kind, AzmcPayloadConverter)

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _AuditActivity(next, self._carries)
