"""The error table (docs/architecture/activities.md, "Errors"), one row at a time, on SDK exception objects (pure)."""

import json
from datetime import timedelta
from typing import Any

import pytest
from azure.core.exceptions import (
    ClientAuthenticationError,
    HttpResponseError,
    ResourceExistsError,
    ResourceNotFoundError,
    ServiceRequestError,
    ServiceResponseError,
)

from activities.errors import classify, classify_code, nic_reservation_delay
from models.errors import ErrorType


class FakeResponse:
    def __init__(self, status: int, code: str = "", message: str = "", headers: dict[str, str] | None = None):
        self.status_code = status
        self.reason = "reason"
        self.headers = headers or {}
        self.request = None
        self._body = json.dumps({"error": {"code": code, "message": message}}) if code else ""

    def text(self, encoding: Any = None) -> str:
        return self._body

    def body(self) -> bytes:
        return self._body.encode()


RESERVED = ("Nic(s) in request is reserved for another Virtual Machine for 42 seconds. Please provide "
            "another nic(s) or retry after 42 seconds. Reserved VM: /subscriptions/x/virtualMachines/vm1")


def http(status: int, code: str = "", message: str = "m", headers: dict[str, str] | None = None,
         cls: type[HttpResponseError] = HttpResponseError) -> HttpResponseError:
    return cls(response=FakeResponse(status, code, message, headers))


@pytest.mark.parametrize(
    ("exc", "kind", "non_retryable", "delay"),
    [
        (http(404, "ResourceNotFound", cls=ResourceNotFoundError), ErrorType.NOT_FOUND, True, None),
        (http(400, "NicReservedForAnotherVm", RESERVED), ErrorType.NIC_RESERVED, False, timedelta(seconds=42)),
        (http(400, "NicInUse"), ErrorType.CONFLICT, False, None),
        (http(409, "AnotherOperationInProgress", cls=ResourceExistsError), ErrorType.CONFLICT, False, None),
        (http(429, "RetryableError"), ErrorType.CONFLICT, False, None),
        (http(429, "SubscriptionRequestsThrottled", headers={"Retry-After": "17"}), ErrorType.THROTTLED,
         False, timedelta(seconds=17)),
        (http(429, "TooManyRequests", headers={"retry-after-ms": "1500"}), ErrorType.THROTTLED, False,
         timedelta(seconds=1.5)),
        (http(500, "InternalServerError"), ErrorType.TRANSIENT, False, None),
        (http(503, ""), ErrorType.TRANSIENT, False, None),
        (http(200, "AllocationFailed"), ErrorType.CAPACITY_EXHAUSTED, False, None),
        (http(409, "ZonalAllocationFailed"), ErrorType.CAPACITY_EXHAUSTED, False, None),
        (http(409, "SkuNotAvailable"), ErrorType.CAPACITY_EXHAUSTED, False, None),
        (http(409, "OperationNotAllowed", "Operation could not be completed as it results in exceeding approved "
              "standardDSv3Family Cores quota."), ErrorType.CAPACITY_EXHAUSTED, False, None),
        (http(409, "OperationNotAllowed", "Disk vm1-0-data-disk is attached to VM /subscriptions/x/vm1."),
         ErrorType.CONFLICT, False, None),
        (http(400, "InvalidParameter"), ErrorType.INVALID_SPEC, True, None),
        (http(422, "Whatever"), ErrorType.INVALID_SPEC, True, None),
        (http(200, "InvalidParameter"), ErrorType.INVALID_SPEC, True, None),
        (http(401, "InvalidAuthenticationToken", cls=ClientAuthenticationError), ErrorType.AUTH_FAILED, True,
         None),
        (http(403, "AuthorizationFailed"), ErrorType.AUTH_FAILED, True, None),
        (ServiceRequestError("connection refused"), ErrorType.TRANSIENT, False, None),
        (ServiceResponseError("connection reset"), ErrorType.TRANSIENT, False, None),
        (TimeoutError(), ErrorType.TRANSIENT, False, None),
    ],
)
def test_azure_errors_map_to_the_design_table(exc: Exception, kind: ErrorType, non_retryable: bool,
                                              delay: timedelta | None) -> None:
    mapped = classify(exc, "create VM vm1")
    assert mapped is not None
    assert mapped.type == kind.value
    assert mapped.non_retryable is non_retryable
    assert mapped.next_retry_delay == delay
    assert mapped.message.startswith("create VM vm1: ")


def test_the_azure_code_and_message_reach_the_operator() -> None:
    mapped = classify(http(400, "NicInUse", "Nic vm1-nic is attached to vm1"))
    assert mapped is not None
    assert "NicInUse" in mapped.message and "attached to vm1" in mapped.message
    assert mapped.details[0] == {"code": "NicInUse", "status": 400}


def test_nic_reservation_delay_comes_from_the_message_else_180s() -> None:
    assert nic_reservation_delay(RESERVED) == timedelta(seconds=42)
    assert nic_reservation_delay("reserved for another Virtual Machine for 0.5 seconds") == timedelta(seconds=0.5)
    assert nic_reservation_delay("no number here") == timedelta(seconds=180)


def test_unknown_exceptions_are_left_alone() -> None:
    assert classify(KeyError("bug")) is None


def test_failed_vm_codes_classify_like_failed_operations() -> None:
    assert classify_code("AllocationFailed", "no capacity").type == ErrorType.CAPACITY_EXHAUSTED.value
    assert classify_code("OSProvisioningTimedOut", "slow").type == ErrorType.TRANSIENT.value
