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
from models.audit import AUDIT_DETAIL, CARRIES_TRAIL, MAX_REQUESTS, Audited, AuditTrail, AzureRequest


class _Attempt:
    def __init__(self) -> None:
        self.requests: list[AzureRequest] = []
        # Operation status path -> the write that started it (its operation name and request id).
        self.started_by: dict[str, AzureRequest] = {}


_CURRENT: ContextVar[_Attempt | None] = ContextVar("azmc_azure_requests", default=None)
_STARTED = "azmc_audit_started"
_OPERATION_HEADERS = ("azure-asyncoperation", "location")


def started_by(url: str) -> AzureRequest | None:
    """The write whose long-running operation `url` (a status poll) follows, in this attempt."""
    attempt = _CURRENT.get()
    return attempt.started_by.get(urlsplit(url).path) if attempt else None


def _record(request: PipelineRequest, status: int, headers: Any) -> None:
    attempt = _CURRENT.get()
    if attempt is None:
        return
    http = request.http_request
    headers = headers or {}
    started = request.context.get(_STARTED) or time.monotonic()
    made = AzureRequest(
        method=http.method, operation=operation_name(http.method, http.url), resource=urlsplit(http.url).path[:300],
        status=status, duration_ms=round((time.monotonic() - started) * 1000),
        request_id=headers.get("x-ms-request-id", "")[:100],
        correlation_id=headers.get("x-ms-correlation-request-id", "")[:100],
    )
    attempt.requests.append(made)
    if http.method != "GET":
        for name in _OPERATION_HEADERS:
            if headers.get(name):
                attempt.started_by[urlsplit(headers[name]).path] = made


class AuditPolicy(SansIOHTTPPolicy):
    """Per retry (beside RequestCountingPolicy): an SDK-level retry is a request of its own."""

    def on_request(self, request: PipelineRequest) -> None:
        request.context[_STARTED] = time.monotonic()

    def on_response(self, request: PipelineRequest, response: PipelineResponse) -> None:
        _record(request, response.http_response.status_code, response.http_response.headers)

    def on_exception(self, request: PipelineRequest) -> None:
        _record(request, 0, {})


def trail(requests: list[AzureRequest]) -> AuditTrail:
    return AuditTrail(requests=requests[-MAX_REQUESTS:], left_out=max(0, len(requests) - MAX_REQUESTS))


class _AuditActivity(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, carries: bool) -> None:
        super().__init__(next)
        self._carries = carries

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        attempt = _Attempt()
        requests = attempt.requests
        _CURRENT.set(attempt)
        try:
            result = await super().execute_activity(input)
        except ApplicationError as err:
            if not self._carries:
                raise
            audit = trail(requests).model_dump(mode="json")
            raise ApplicationError(
                err.message, *err.details, {AUDIT_DETAIL: audit}, type=err.type,
                non_retryable=err.non_retryable, next_retry_delay=err.next_retry_delay, category=err.category,
            ) from err.__cause__
        finally:
            _CURRENT.set(None)
        return Audited(result, trail(requests)) if self._carries else result


class AuditInterceptor(Interceptor):
    """`data_converter`: the worker client's; only azmc's converter carries the trail (else: recorded, not sent)."""

    def __init__(self, data_converter: DataConverter) -> None:
        # Asked, not imported: activities/ builds on models/ only (layers.toml), and the converter
        # that puts the trail in a payload's metadata is the codec's (codec.converter.AzmcPayloadConverter).
        self._carries = getattr(data_converter.payload_converter_class, CARRIES_TRAIL, False) is True

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _AuditActivity(next, self._carries)
