"""The ONE mapping from Azure SDK exceptions to Temporal ApplicationErrors (docs/architecture/activities.md, "Errors").

Workflows branch on `ApplicationError.type` (models.errors.ErrorType); retryability and Azure's own hint
for the next attempt (Retry-After, a NIC reservation) are decided here. Waits of our choosing (the
capacity wait, backoffs) belong to the workflow: workflows/policies.py.
"""

import asyncio
import json
import re
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from azure.core.exceptions import (
    ClientAuthenticationError,
    HttpResponseError,
    ServiceRequestError,
    ServiceResponseError,
)
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from activities.audit import started_by
from activities.spec_field_hints import spec_field_hint
from models.errors import NON_RETRYABLE, ErrorType
from models.refusals import CAPACITY_CODES
from models.visible_text import visible

NIC_RESERVED_DEFAULT = timedelta(seconds=180)
THROTTLED_DEFAULT = timedelta(seconds=30)

# publicipaddresscannotbedeleted: a NIC still holds the public IP, until it lets go (like nicinuse).
_CONFLICT_CODES = {"nicinuse", "publicipaddresscannotbedeleted", "anotheroperationinprogress", "retryableerror",
                   "conflict", "operationpreempted", "resourcebusy"}
_AUTH_CODES = {"authorizationfailed", "authenticationfailed", "invalidauthenticationtoken",
               "invalidauthenticationtokentenant", "expiredauthenticationtoken", "linkedauthorizationfailed"}
# Azure's 404 for an image the spec names that does not exist (in the VM's region): the spec's problem, not a
# resource of the machine gone.
_SPEC_NOT_FOUND_CODES = {"galleryimagenotfound"}
_NOT_FOUND_CODES = {"resourcenotfound", "notfound", "resourcegroupnotfound", "parentresourcenotfound"}
_RESERVED_SECONDS = re.compile(r"for (\d+(?:\.\d+)?) seconds", re.IGNORECASE)


def error(kind: ErrorType, message: str, *, delay: timedelta | None = None, code: str = "",
          status: int | None = None, benign: bool = False) -> ApplicationError:
    """An ApplicationError of our taxonomy; retryability comes from models.errors.NON_RETRYABLE.

    `benign`: an answer the caller expects (e.g. "nothing of the machine exists"), logged without a warning.
    The message may echo Azure's text, a name or a value: the status, the UI, logs and `temporal` show it with its
    invisible characters escaped (models/visible_text.py).
    """
    return ApplicationError(
        visible(message),
        {"code": code, "status": status},
        type=kind.value,
        non_retryable=kind in NON_RETRYABLE,
        next_retry_delay=delay,
        category=ApplicationErrorCategory.BENIGN if benign else ApplicationErrorCategory.UNSPECIFIED,
    )


def azure_error_code(exc: HttpResponseError) -> str:
    """ARM's error code: from the SDK-parsed `error` object, else from the raw JSON body."""
    parsed = getattr(exc, "error", None)
    if parsed is not None and getattr(parsed, "code", None):
        return str(parsed.code)
    response = getattr(exc, "response", None)
    if response is None:
        return ""
    try:
        body = json.loads(response.text())
    except (ValueError, TypeError, AttributeError):
        return ""
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("code") or "")
    return ""


def azure_error_message(exc: HttpResponseError) -> str:
    parsed = getattr(exc, "error", None)
    if parsed is not None and getattr(parsed, "message", None):
        message = str(parsed.message)
        # "... See inner errors for details." (a marketplace purchase refusal): the why is in the details.
        if "inner error" in message.lower():
            inner = [str(d.message) for d in (getattr(parsed, "details", None) or []) if getattr(d, "message", None)]
            message = " ".join([message.strip(), *inner])
        return message
    return str(exc.message or exc)


def retry_after(exc: HttpResponseError) -> timedelta | None:
    """The server's requested wait: `retry-after-ms`, else `Retry-After` in seconds."""
    seconds = retry_after_seconds(getattr(getattr(exc, "response", None), "headers", None) or {})
    return None if seconds is None else timedelta(seconds=seconds)


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    for header, scale in (("retry-after-ms", 0.001), ("x-ms-retry-after-ms", 0.001), ("Retry-After", 1.0)):
        value = headers.get(header)
        if value is None:
            continue
        try:
            return max(float(value) * scale, 0.0)
        except ValueError:
            continue  # an HTTP date: rare for ARM; fall back to our default
    return None


def nic_reservation_delay(message: str) -> timedelta:
    """Azure says "... reserved for another Virtual Machine for 180 seconds ..."; wait exactly that long."""
    match = _RESERVED_SECONDS.search(message or "")
    return timedelta(seconds=float(match.group(1))) if match else NIC_RESERVED_DEFAULT


def classify(exc: BaseException, action: str = "") -> ApplicationError | None:
    """Translate an Azure/transport exception; None when it is not one we recognise (let it propagate)."""
    prefix = f"{action}: " if action else ""
    if isinstance(exc, ApplicationError):
        return exc
    if isinstance(exc, ClientAuthenticationError) and exc.status_code in (None, 401, 403):
        return error(ErrorType.AUTH_FAILED, f"{prefix}authentication failed: {exc.message}",
                     status=exc.status_code)
    if isinstance(exc, HttpResponseError) and not isinstance(exc, (ServiceRequestError, ServiceResponseError)):
        return _classify_http(exc, prefix)
    if isinstance(exc, (ServiceRequestError, ServiceResponseError, TimeoutError, asyncio.TimeoutError,
                        ConnectionError)):
        return error(ErrorType.TRANSIENT, f"{prefix}connection problem: {exc}")
    return None


def request_id(exc: HttpResponseError) -> str:
    """Azure's x-ms-request-id of the answer that failed: what an Azure support ticket asks for."""
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    return str(headers.get("x-ms-request-id") or "")[:100]


def _request_ids(exc: HttpResponseError) -> str:
    """" (request id R)", and for a failed long-running operation also the id of the write that started
    it (activities/audit.py saw it): " (request id R; virtualMachines.put request id W)"."""
    rid = request_id(exc)
    request = getattr(getattr(exc, "response", None), "request", None)
    write = started_by(request.url) if request is not None else None
    ids = [f"request id {rid}"] if rid else []
    ids += [f"{write.operation} request id {write.request_id}"] if write and write.request_id else []
    return f" ({'; '.join(ids)})" if ids else ""


def _classify_http(exc: HttpResponseError, prefix: str) -> ApplicationError:
    return classify_code(
        azure_error_code(exc), azure_error_message(exc) + _request_ids(exc),
        status=exc.status_code, wait=retry_after(exc), prefix=prefix,
    )


def classify_code(code: str, message: str, *, status: int | None = None, wait: timedelta | None = None,
                  prefix: str = "") -> ApplicationError:
    """The table itself, on ARM's error code and HTTP status (None for a failed operation or VM)."""
    lowered = code.lower()
    text = f"{prefix}{code or status}: {message}"
    kwargs: dict[str, Any] = {"code": code, "status": status}
    if lowered == "nicreservedforanothervm":
        return error(ErrorType.NIC_RESERVED, text, delay=nic_reservation_delay(message), **kwargs)
    if lowered == "operationnotallowed" and "quota" not in message.lower():
        # Azure's code for "results in exceeding approved quota" (capacity) and also for "disk is still
        # attached to a VM" (a conflict that ends when the VM lets go): only the former waits 10 minutes.
        return error(ErrorType.CONFLICT, text, delay=wait, **kwargs)
    if lowered in CAPACITY_CODES:
        # No delay of ours: the workflow owns the capacity wait (workflows/policies.py CAPACITY_BACKOFF).
        return error(ErrorType.CAPACITY_EXHAUSTED, text, **kwargs)
    if lowered == "notsupported":  # what the spec asks cannot be done (an ephemeral OS disk too big), even as a 409
        return error(ErrorType.INVALID_SPEC, text + spec_field_hint(message), **kwargs)
    if lowered in _CONFLICT_CODES or status == 409:
        return error(ErrorType.CONFLICT, text, delay=wait, **kwargs)
    if status == 429:
        return error(ErrorType.THROTTLED, text, delay=wait or THROTTLED_DEFAULT, **kwargs)
    if status in (401, 403) or lowered in _AUTH_CODES:
        return error(ErrorType.AUTH_FAILED, text, **kwargs)
    if lowered in _SPEC_NOT_FOUND_CODES:
        return error(ErrorType.INVALID_SPEC, text, **kwargs)
    if status == 404 or lowered in _NOT_FOUND_CODES:
        return error(ErrorType.NOT_FOUND, text, **kwargs)
    if status is not None and (status >= 500 or status == 408):
        return error(ErrorType.TRANSIENT, text, delay=wait, **kwargs)
    if status is not None and 400 <= status < 500:
        return error(ErrorType.INVALID_SPEC, text + spec_field_hint(message), **kwargs)
    # A failed long-running operation (the poll answered 200 with an error object) or a Failed VM.
    if lowered.startswith("invalid") or lowered in ("badrequest", "propertychangenotallowed"):
        return error(ErrorType.INVALID_SPEC, text + spec_field_hint(message), **kwargs)
    return error(ErrorType.TRANSIENT, text, **kwargs)

