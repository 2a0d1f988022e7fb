"""The refusal table: which Azure error codes are capacity errors, and how long and how wide each marks offerings.

Karpenter's Azure provider (pkg/providers/instance, its "unavailable offerings" cache) is the reference:
- AllocationFailed: the size has no room in the region: the size, every zone, both priorities, 1 h.
- ZonalAllocationFailed: the size has no room in that zone: the size in that zone, both priorities, 1 h.
- OverconstrainedZonalAllocationRequest: this size, zone and priority together cannot be met (Azure says
  so for this combination only), 1 h. OverconstrainedAllocationRequest: the size at this priority in
  every zone, 1 h. Both are allocation failures with narrower scope, so they share AllocationFailed's time.
- SkuNotAvailable: the size is not offered here (restricted for the subscription, or no Spot capacity):
  the size at this priority in every zone; 1 h for Spot (Spot capacity comes back), 23 h for regular
  (a restriction does not lift within the day).
- Quota (QuotaExceeded, OperationNotAllowed "... exceeding approved ... quota"): a family quota marks the
  size at this priority in every zone for 10 min, or 1 h when the limit is 0 (no quota at all for it);
  the regional total or the Spot (low priority) quota marks every size of the priority for 30 min.
- Any other capacity code (SpareCapacityExhausted, ...): this offering, 3 min.
- SpotEvicted (azmc's, for an evicted Spot VM of a machine with fallback_to_regular): that offering, 1 h.
Pure: used by the `Offerings` workflow and activities/errors.py (which codes are capacity errors).
"""

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from models.offerings import ANY, Offering, Refusal, shorten
from models.spec import Priority

# Lower case: ARM's codes are compared case-insensitively. OperationNotAllowed counts only with "quota".
CAPACITY_CODES = frozenset({
    "allocationfailed", "zonalallocationfailed", "skunotavailable", "overconstrainedallocationrequest",
    "overconstrainedzonalallocationrequest", "quotaexceeded", "operationnotallowed",
    "allocationfailedquotaexceeded", "sparecapacityexhausted",
})
ALLOCATION_FAILED_FOR = timedelta(hours=1)
SKU_NOT_AVAILABLE_SPOT_FOR = timedelta(hours=1)
SKU_NOT_AVAILABLE_REGULAR_FOR = timedelta(hours=23)
QUOTA_FOR = timedelta(minutes=10)
NO_QUOTA_FOR = timedelta(hours=1)
REGIONAL_QUOTA_FOR = timedelta(minutes=30)
OTHER_CAPACITY_FOR = timedelta(minutes=3)
# azmc's own code, not Azure's: a Spot VM of a machine with fallback_to_regular was evicted (deallocated or
# gone). Azure took the capacity back: that Spot offering is skipped as long as an allocation failure.
SPOT_EVICTED = "SpotEvicted"
_NO_QUOTA = re.compile(r"current limit:\s*0\b")


class Scope(StrEnum):
    OFFERING = "offering"  # this size, zone and priority
    SIZE_IN_ZONE = "size-in-zone"  # this size in this zone, every priority
    SIZE = "size"  # this size in every zone, this priority
    SIZE_EVERYWHERE = "size-everywhere"  # this size in every zone, every priority
    PRIORITY = "priority"  # every size in every zone at this priority (a regional or Spot quota)


@dataclass(frozen=True)
class RefusalRule:
    scope: Scope
    duration: timedelta


def is_quota_refusal(code: str, message: str) -> bool:
    """Whether Azure refused for quota (QuotaExceeded, OperationNotAllowed "... exceeding approved ... quota"): the
    usages say how full it is, so a reading taken after the refusal decides (workflows/offerings/quota.py)."""
    lowered = code.lower()
    if lowered == "operationnotallowed":
        return "quota" in message.lower()
    return lowered in ("quotaexceeded", "allocationfailedquotaexceeded")


def is_capacity_error(code: str, message: str) -> bool:
    """Whether Azure's answer means "no room or no quota for this offering" (not a mistake, not a conflict)."""
    lowered = code.lower()
    if lowered == "operationnotallowed":
        return "quota" in message.lower()  # else a conflict: a disk still attached, ...
    return lowered in CAPACITY_CODES


def _quota_rule(message: str) -> RefusalRule:
    text = message.lower()
    if "regional" in text or "lowpriority" in text or "low priority" in text:
        return RefusalRule(Scope.PRIORITY, REGIONAL_QUOTA_FOR)
    if _NO_QUOTA.search(text):
        return RefusalRule(Scope.SIZE, NO_QUOTA_FOR)
    return RefusalRule(Scope.SIZE, QUOTA_FOR)


def refusal_rule(code: str, message: str, priority: Priority) -> RefusalRule | None:
    """How wide and how long a refusal marks offerings; None when it is not a capacity error."""
    if code == SPOT_EVICTED:
        return RefusalRule(Scope.OFFERING, ALLOCATION_FAILED_FOR)
    if not is_capacity_error(code, message):
        return None
    lowered = code.lower()
    if lowered == "allocationfailed":
        return RefusalRule(Scope.SIZE_EVERYWHERE, ALLOCATION_FAILED_FOR)
    if lowered == "zonalallocationfailed":
        return RefusalRule(Scope.SIZE_IN_ZONE, ALLOCATION_FAILED_FOR)
    if lowered == "overconstrainedzonalallocationrequest":
        return RefusalRule(Scope.OFFERING, ALLOCATION_FAILED_FOR)
    if lowered == "overconstrainedallocationrequest":
        return RefusalRule(Scope.SIZE, ALLOCATION_FAILED_FOR)
    if lowered == "skunotavailable":
        spot = priority == Priority.SPOT
        return RefusalRule(Scope.SIZE, SKU_NOT_AVAILABLE_SPOT_FOR if spot else SKU_NOT_AVAILABLE_REGULAR_FOR)
    if is_quota_refusal(code, message):
        return _quota_rule(message)
    return RefusalRule(Scope.OFFERING, OTHER_CAPACITY_FOR)


def _pattern(offering: Offering, scope: Scope) -> tuple[str, str, str]:
    size, zone, priority = offering.vm_size, offering.zone, str(offering.priority)
    if scope == Scope.SIZE_IN_ZONE:
        return size, zone, ANY
    if scope == Scope.SIZE:
        return size, ANY, priority
    if scope == Scope.SIZE_EVERYWHERE:
        return size, ANY, ANY
    if scope == Scope.PRIORITY:
        return ANY, ANY, priority
    return size, zone, priority


def refusal_of(offering: Offering, code: str, message: str, now: datetime, machine: str = "") -> Refusal | None:
    """The memory entry for Azure refusing `offering` with `code` at `now`; None for a non-capacity error."""
    rule = refusal_rule(code, message, offering.priority)
    if rule is None:
        return None
    size, zone, priority = _pattern(offering, rule.scope)
    return Refusal(vm_size=size, zone=zone, priority=priority, code=code, message=shorten(message),
                   refused_at=now, until=now + rule.duration, machine=machine)
