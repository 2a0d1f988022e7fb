"""The ApplicationError `type`s activities raise (docs/architecture/activities.md, "Errors"); workflows branch
on them."""

from enum import StrEnum


class ErrorType(StrEnum):
    NOT_FOUND = "NotFound"
    NIC_RESERVED = "NicReserved"
    CONFLICT = "Conflict"
    THROTTLED = "Throttled"
    TRANSIENT = "Transient"
    CAPACITY_EXHAUSTED = "CapacityExhausted"
    INVALID_SPEC = "InvalidSpec"
    AUTH_FAILED = "AuthFailed"
    # A resource with our deterministic name exists but does not carry our ownership tag.
    NOT_OWNED = "NotOwned"
    # A new VM runs, but its guest did not become healthy within timeouts.startup: a failed creation attempt.
    GUEST_NOT_READY = "GuestNotReady"
    # A read asked as a local activity would wait for its group's shared list: asked again as a regular activity,
    # which waits without holding a workflow task (activities/reading/group_listing.py).
    WOULD_WAIT_FOR_COMPANY = "WouldWaitForCompany"


NON_RETRYABLE: frozenset[str] = frozenset(
    {ErrorType.INVALID_SPEC, ErrorType.AUTH_FAILED, ErrorType.NOT_FOUND, ErrorType.NOT_OWNED}
)
