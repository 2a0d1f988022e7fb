"""Allocation: what a VM PUT, PATCH or start asks of Azure's capacity and quota, and Azure's answer.

Quota is checked first and refuses synchronously (as Azure's validation does); then capacity, whose
refusal is either synchronous (SkuNotAvailable) or the error the long-running operation ends with.
"""

from __future__ import annotations

from typing import Any

from emulator.arm.errors import ArmError
from emulator.arm.store import Resource
from emulator.compute.allocation.capacity import AllocationRequest, priority_of
from emulator.compute.vm_model import VM_TYPE
from emulator.state import EmulatorState

# Power states in which a VM holds no allocation: never allocated (a failed create) or deallocated.
_UNALLOCATED = (None, "deallocated")


def request_for(vm_id: str, subscription: str, body: dict[str, Any]) -> AllocationRequest:
    """The allocation a VM body (request or stored) asks for."""
    props = body.get("properties") or {}
    zones = body.get("zones") or []
    return AllocationRequest(
        vm_id=vm_id,
        subscription=subscription,
        location=str(body.get("location") or ""),
        vm_size=str((props.get("hardwareProfile") or {}).get("vmSize") or ""),
        zone=str(zones[0]) if zones else "",
        priority=priority_of(props),
    )


def holds_allocation(vm: Resource) -> bool:
    return vm.extra.get("power") not in _UNALLOCATED


def write_allocates(existing: Resource | None, request: AllocationRequest) -> bool:
    """A create allocates; so does a write to a VM that never got an allocation (it runs on success)
    and a resize of an allocated VM."""
    if existing is None or not holds_allocation(existing):
        return True
    old_size = str((existing.properties.get("hardwareProfile") or {}).get("vmSize") or "")
    return old_size.lower() != request.vm_size.lower()


def allocations(state: EmulatorState, subscription: str, but: str = "") -> list[AllocationRequest]:
    """The allocations the subscription's VMs hold (every location), but VM `but`'s: what quota counts, for
    a refusal and for the usages API alike."""
    return [request_for(vm.id, vm.subscription, vm.body) for vm in state.store.of_type(VM_TYPE, subscription)
            if holds_allocation(vm) and vm.id.lower() != but.lower()]


def check(state: EmulatorState, request: AllocationRequest) -> ArmError | None:
    """Raises the synchronous refusal (409); returns the error the operation must end with, or None."""
    def allocated() -> list[AllocationRequest]:  # only computed when a quota applies: it reads every VM
        return allocations(state, request.subscription, but=request.vm_id)

    quota_error = state.quotas.refusal(request, allocated)
    if quota_error is not None:
        raise quota_error
    refusal = state.capacity.refusal(request)
    if refusal is None:
        return None
    if refusal.synchronous:
        raise refusal.error
    return refusal.error
