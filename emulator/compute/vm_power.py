"""VM power operations (powerOff, deallocate, start) and Spot eviction.

A start of a VM without an allocation (deallocated) allocates again, so capacity and quota apply to it. A
start that fails (AllocationFailed from capacity, or an injected operation-stage fault) leaves the VM as
Azure does: provisioning Failed with the error in its instance view, power state unchanged (deallocated).
"""

from __future__ import annotations

from typing import Any

from emulator.arm import errors
from emulator.arm.arm_ids import Scope
from emulator.arm.common import ensure_idle, get_existing, start_operation
from emulator.arm.outcome import Outcome
from emulator.compute.allocation.capacity import SPOT_PRIORITIES
from emulator.compute.allocation.vm_allocation import check as check_allocation
from emulator.compute.allocation.vm_allocation import holds_allocation, request_for
from emulator.compute.virtual_machines import VM_TYPE, VirtualMachinesBackend
from emulator.compute.vm_operation import begin, left_failed, succeeded
from emulator.compute.vm_placement import refuse_deallocation_of_ephemeral
from emulator.state import EmulatorState

# verb -> (transitional power state, final power state)
_POWER_VERBS = {
    "powerOff": ("stopping", "stopped"),
    "deallocate": ("deallocating", "deallocated"),
    "start": ("starting", "running"),
}


class VmPowerBackend:
    def __init__(self, state: EmulatorState, vms: VirtualMachinesBackend) -> None:
        self.state = state
        self.vms = vms

    def power(self, scope: Scope, name: str, verb: str) -> Outcome:
        vm = get_existing(self.state, scope, VM_TYPE, name)
        ensure_idle(self.state, vm.id)
        if verb == "deallocate":
            refuse_deallocation_of_ephemeral(vm.properties, vm.name)
        allocation_error = None
        if verb == "start" and not holds_allocation(vm):
            allocation_error = check_allocation(self.state, request_for(vm.id, vm.subscription, vm.body))
        transitional, final = _POWER_VERBS[verb]
        power_before = vm.extra.get("power")
        provisioning_before = vm.properties.get("provisioningState")
        begin(vm, self.state, transitional)

        async def work() -> None:
            if allocation_error is not None:
                raise allocation_error
            succeeded(vm, self.state, final, boots=verb == "start")

        def failed(error: errors.ArmError) -> None:
            if verb == "start":
                left_failed(vm, self.state, power_before, error)
                return
            vm.extra["power"] = power_before
            vm.properties["provisioningState"] = provisioning_before
            self.state.store.changed(vm)

        return Outcome(202, None, start_operation(self.state, vm, f"virtualMachines.{verb}", work, failed))

    async def evict(self, vm_id: str) -> dict[str, Any]:
        """Evict a running Spot VM now, by its eviction policy: Deallocate keeps it (deallocated), Delete
        removes it with its NICs and disks by their deleteOption."""
        vm = self.state.store.get(vm_id)
        if vm is None or vm.type != VM_TYPE:
            raise errors.ArmError(404, "ResourceNotFound", f"Virtual machine '{vm_id}' was not found.")
        priority = str(vm.properties.get("priority") or "Regular")
        if priority.lower() not in SPOT_PRIORITIES:
            raise errors.ArmError(400, "OperationNotAllowed",
                                  f"Only Spot virtual machines can be evicted; {vm.name} has priority {priority}.")
        ensure_idle(self.state, vm.id)
        if vm.extra.get("power") != "running":
            raise errors.ArmError(400, "OperationNotAllowed",
                                  f"Only a running VM can be evicted; {vm.name} is {vm.extra.get('power')}.")
        policy = str(vm.properties.get("evictionPolicy") or "Deallocate")  # Azure's default for Spot
        if policy.lower() == "delete":
            await self.vms.delete_with_cascades(vm)
        else:
            vm.extra["power"] = "deallocated"
            self.state.store.changed(vm)
        return {"id": vm.id, "evictionPolicy": policy}
