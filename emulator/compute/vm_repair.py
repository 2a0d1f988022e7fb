"""`restart` and `redeploy`: the repairs Azure offers a running VM, as long-running operations.

Both reboot the guest (a new boot, `guest.py`). A restart keeps the host; a redeploy moves the VM to a new
host with the same id, vmId, NICs and disks. Each clears the guest faults it would clear on Azure
(`guest_faults.py`): a kernel panic goes with either, a host failure only with a redeploy.
"""

from __future__ import annotations

from emulator.arm import errors
from emulator.arm.arm_ids import Scope
from emulator.arm.common import ensure_idle, get_existing, start_operation
from emulator.arm.outcome import Outcome
from emulator.compute.vm_maintenance import approved
from emulator.compute.vm_model import VM_TYPE, new_host
from emulator.compute.vm_operation import begin, left_failed, succeeded
from emulator.state import EmulatorState

REPAIRS = ("restart", "redeploy")
# Compute's answer to a restart of a VM that is not running (stopped or deallocated).
NOT_RUNNING = "The operation requires the VM to be running (or set to run)."


class VmRepairBackend:
    def __init__(self, state: EmulatorState) -> None:
        self.state = state

    def repair(self, scope: Scope, name: str, verb: str) -> Outcome:
        vm = get_existing(self.state, scope, VM_TYPE, name)
        ensure_idle(self.state, vm.id)
        if vm.extra.get("power") != "running":
            raise errors.ArmError(409, "OperationNotAllowed", NOT_RUNNING)
        begin(vm, self.state, "starting")  # the guest goes down and comes up again: its agent is Not Ready

        async def work() -> None:
            if verb == "redeploy":
                vm.extra["host"] = new_host()
            self.state.guest_faults.repaired(vm, verb)
            approved(self.state, vm, verb)
            succeeded(vm, self.state, "running", boots=True)

        def failed(error: errors.ArmError) -> None:
            """As a failed start: the VM is left Failed with the error in its instance view, still running."""
            left_failed(vm, self.state, "running", error)

        return Outcome(202, None, start_operation(self.state, vm, f"virtualMachines.{verb}", work, failed))
