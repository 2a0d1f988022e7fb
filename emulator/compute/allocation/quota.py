"""vCPU quotas per subscription and location (`POST /_emulator/quota`), checked when a VM is allocated.

As Azure's compute provider: a Regular VM counts against its size's family quota (standardDSv5Family ...)
and the regional total (`cores`); a Spot VM only against `lowPriorityCores`. Usage is the vCPUs of the
VMs that hold an allocation in that location (running or stopped; not deallocated, not never-allocated).
A VM that would exceed a limit is refused synchronously: 409 OperationNotAllowed with Azure's message.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from emulator.arm.errors import ArmError
from emulator.compute.allocation import vm_sizes
from emulator.compute.allocation.capacity import AllocationRequest, same_location
from emulator.compute.allocation.entries import Entries

_QUOTA_CODES = ("OperationNotAllowed", "QuotaExceeded")
_INCREASE = ("Submit a request for Quota increase at https://aka.ms/ProdportalCRP/#blade/Microsoft_Azure_Capacity/"
             "UsageAndQuota.ReactView by specifying parameters listed in the 'Details' section for deployment "
             "to succeed. Please read more about quota limits at "
             "https://docs.microsoft.com/en-us/azure/azure-supportability/per-vm-quota-requests")
# How Azure names each quota in its message.
_QUOTA_TEXT = {vm_sizes.TOTAL_REGIONAL.lower(): "Total Regional Cores",
               vm_sizes.LOW_PRIORITY.lower(): "LowPriorityCores"}


class QuotaRule(BaseModel):
    """A limit on one quota: `family` (a family name, `cores` or `lowPriorityCores`) or the family of
    `vm_size`; `location` null = every location (each counted on its own)."""

    model_config = ConfigDict(extra="forbid")

    family: str | None = None
    vm_size: str | None = None
    limit_cores: int = Field(ge=0)
    location: str | None = None
    code: str = "OperationNotAllowed"

    @field_validator("code")
    @classmethod
    def _code(cls, value: str) -> str:
        if value not in _QUOTA_CODES:
            raise ValueError(f"code must be one of {', '.join(_QUOTA_CODES)}")
        return value

    @model_validator(mode="after")
    def _one_target(self) -> QuotaRule:
        if self.vm_size is not None:
            size_family = vm_sizes.family(self.vm_size)
            if self.family is not None and self.family.lower() != size_family.lower():
                raise ValueError(f"{self.vm_size} is in {size_family}, not {self.family}")
            self.family = size_family  # listed with the family it limits
        if self.family is None:
            raise ValueError("give 'family' (a family, 'cores' or 'lowPriorityCores') or 'vm_size'")
        return self


class QuotaEntry(QuotaRule):
    id: str
    hits: int = 0


def quotas_of(request: AllocationRequest) -> list[str]:
    """The quota names (lower case) an allocation counts against."""
    if request.spot:
        return [vm_sizes.LOW_PRIORITY.lower()]
    return [vm_sizes.family(request.vm_size).lower(), vm_sizes.TOTAL_REGIONAL.lower()]


def _message(entry: QuotaEntry, request: AllocationRequest, usage: int, needed: int) -> str:
    name = _QUOTA_TEXT.get(str(entry.family).lower(), f"{entry.family} Cores")
    if entry.code == "QuotaExceeded":  # the wording ARM's template validation uses
        return (f"Operation results in exceeding quota limits of Core. Maximum allowed: {entry.limit_cores}, "
                f"Current in use: {usage}, Additional requested: {needed}.")
    return (f"Operation could not be completed as it results in exceeding approved {name} quota. Additional "
            f"details - Deployment Model: Resource Manager, Location: {request.location}, Current Limit: "
            f"{entry.limit_cores}, Current Usage: {usage}, Additional Required: {needed}, (Minimum) New Limit "
            f"Required: {usage + needed}. {_INCREASE}")


def in_use(quota: str, subscription: str, location: str, allocated: list[AllocationRequest]) -> int:
    """The vCPUs `allocated` count against `quota` (lower case) in the subscription and location: what a
    refusal compares with its limit, and what the usages API reports."""
    return sum(vm_sizes.vcpus(other.vm_size) for other in allocated
               if same_location(other.location, location) and other.subscription.lower() == subscription.lower()
               and quota in quotas_of(other))


class QuotaRegistry(Entries[QuotaEntry]):
    def __init__(self) -> None:
        super().__init__(QuotaRule, QuotaEntry, "quota")

    def in_location(self, location: str) -> list[QuotaEntry]:
        """The entries that limit a quota in `location` (theirs, or every location's)."""
        return [entry for entry in self._entries.values()
                if entry.location is None or same_location(entry.location, location)]

    def refusal(self, request: AllocationRequest,
                allocated: Callable[[], list[AllocationRequest]]) -> ArmError | None:
        """The error for an allocation that would exceed a limit, given the other allocated VMs."""
        names = quotas_of(request)
        others: list[AllocationRequest] | None = None
        for entry in self.in_location(request.location):
            family = str(entry.family).lower()
            if family not in names:
                continue
            others = allocated() if others is None else others
            usage = in_use(family, request.subscription, request.location, others)
            needed = vm_sizes.vcpus(request.vm_size)
            if usage + needed > entry.limit_cores:
                entry.hits += 1
                return ArmError(409, entry.code, _message(entry, request, usage, needed))
        return None
