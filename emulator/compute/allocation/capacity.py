"""Azure capacity: which (size, zone, priority, location) cannot be allocated now, and how Azure says so.

Set with `POST /_emulator/capacity`. Azure decides the code from the request, not from the cause:
a zonal VM that cannot be allocated gets ZonalAllocationFailed, a regional one AllocationFailed, both in
the long-running operation (the PUT or start was accepted, the operation ends Failed). A Spot request
without Spot capacity and a SKU restricted for the subscription are refused synchronously: 409
SkuNotAvailable. An entry's `code` overrides the default with another code Azure uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from emulator.arm.errors import ArmError
from emulator.compute.allocation.entries import Entries

SPOT_PRIORITIES = ("spot", "low")  # "Low" is the older name of Spot

_GUIDANCE = "Read more about improving likelihood of allocation success at http://aka.ms/allocation-guidance"
ALLOCATION_FAILED = ("Allocation failed. We do not have sufficient capacity for the requested VM size in this "
                     f"region. {_GUIDANCE}")
ZONAL_ALLOCATION_FAILED = ("Allocation failed. We do not have sufficient capacity for the requested VM size in "
                           f"this zone. {_GUIDANCE}")
_OVERCONSTRAINED = ("Allocation failed. VM(s) with the following constraints cannot be allocated, because the "
                    "condition is too restrictive. Please remove some constraints and try again. Constraints "
                    "applied are:\n{constraints}")


@dataclass(frozen=True)
class AllocationRequest:
    """What a VM PUT or start asks Azure to allocate."""

    vm_id: str
    subscription: str
    location: str
    vm_size: str
    zone: str  # "" = regional
    priority: str  # "Regular" or "Spot"

    @property
    def spot(self) -> bool:
        return self.priority == "Spot"


def priority_of(properties: dict[str, Any]) -> str:
    """"Spot" for Spot (or its older name "Low"), else "Regular"."""
    return "Spot" if str(properties.get("priority") or "").lower() in SPOT_PRIORITIES else "Regular"


def _overconstrained(request: AllocationRequest) -> str:
    constraints = (["Availability Zone"] if request.zone else []) + ["VM Size"]
    return _OVERCONSTRAINED.format(constraints="".join(f"  - {c}\n" for c in constraints))


def _sku_not_available(request: AllocationRequest) -> str:
    if request.spot:  # Azure's Spot capacity message speaks of a "tier"
        return (f"The requested tier for resource '{request.vm_id}' is currently not available in location "
                f"'{request.location}' for subscription '{request.subscription}'. Try another tier or deploy "
                "to a different location.")
    return (f"The requested VM size for resource 'Following SKUs have failed for Capacity Restrictions: "
            f"{request.vm_size}' is currently not available in location '{request.location}'. Please try "
            "another size or deploy to a different location or different zone. See "
            "https://aka.ms/azureskunotavailable for details.")


# code -> (refused synchronously with 409?, message builder)
_CODES = {
    "AllocationFailed": (False, lambda request: ALLOCATION_FAILED),
    "ZonalAllocationFailed": (False, lambda request: ZONAL_ALLOCATION_FAILED),
    "OverconstrainedAllocationRequest": (False, _overconstrained),
    "OverconstrainedZonalAllocationRequest": (False, _overconstrained),
    "SkuNotAvailable": (True, _sku_not_available),
}
CAPACITY_CODES = tuple(_CODES)


@dataclass(frozen=True)
class Refusal:
    """How Azure refuses an allocation: `synchronous` errors answer the request (409), the others end its
    long-running operation Failed."""

    error: ArmError
    synchronous: bool


class CapacityRule(BaseModel):
    """Unavailable capacity; a field left null matches anything. `zone` "" matches regional VMs only."""

    model_config = ConfigDict(extra="forbid")

    vm_size: str | None = None
    zone: str | None = None
    priority: str | None = None
    location: str | None = None
    code: str | None = None
    available: bool = False
    # Spot capacity going also takes back what it lends: evict the running Spot VMs that match, now.
    evict: bool = False

    @field_validator("priority")
    @classmethod
    def _priority(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if value.lower() in SPOT_PRIORITIES:
            return "Spot"
        if value.lower() == "regular":
            return "Regular"
        raise ValueError("priority must be 'Regular', 'Spot' or null")

    @field_validator("code")
    @classmethod
    def _code(cls, value: str | None) -> str | None:
        if value is not None and value not in _CODES:
            raise ValueError(f"code must be one of {', '.join(CAPACITY_CODES)}")
        return value

    @field_validator("available")
    @classmethod
    def _available(cls, value: bool) -> bool:
        if value:
            raise ValueError("only 'available': false can be set; DELETE the entry to restore capacity")
        return value

    @model_validator(mode="after")
    def _evicts_spot_only(self) -> CapacityRule:
        if self.evict and self.priority == "Regular":
            raise ValueError("only Spot VMs are evicted: 'evict' needs priority 'Spot' or null")
        return self

    def matches(self, request: AllocationRequest) -> bool:
        return ((self.vm_size is None or self.vm_size.lower() == request.vm_size.lower())
                and (self.zone is None or self.zone == request.zone)
                and (self.priority is None or self.priority == request.priority)
                and (self.location is None or same_location(self.location, request.location)))

    def refusal(self, request: AllocationRequest) -> Refusal:
        code = self.code or _default_code(self, request)
        synchronous, message = _CODES[code]
        return Refusal(ArmError(409, code, message(request)), synchronous)


def same_location(a: str, b: str) -> bool:
    """ARM treats "West Europe" and "westeurope" as one location."""
    return a.replace(" ", "").lower() == b.replace(" ", "").lower()


def _default_code(rule: CapacityRule, request: AllocationRequest) -> str:
    if rule.priority == "Spot":  # Spot capacity gone: Azure fails the request fast
        return "SkuNotAvailable"
    return "ZonalAllocationFailed" if request.zone else "AllocationFailed"


class CapacityEntry(CapacityRule):
    id: str
    hits: int = Field(0, description="allocations this entry refused")


class CapacityRegistry(Entries[CapacityEntry]):
    def __init__(self) -> None:
        super().__init__(CapacityRule, CapacityEntry, "capacity")

    def refusal(self, request: AllocationRequest) -> Refusal | None:
        """The first entry (in the order they were added) that refuses this allocation, counted."""
        for entry in self._entries.values():
            if entry.matches(request):
                entry.hits += 1
                return entry.refusal(request)
        return None
