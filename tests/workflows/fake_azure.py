"""An in-memory Azure for the few workflow tests that need exact control of timing and failures.

Registered under the real activity names, so the workflow cannot tell it from the driver. Every
other workflow scenario runs the real driver against the emulator.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.offerings import memory as offerings_memory
from models.activity_io import ActivityName, DeleteResourceInput, DeleteVmInput, EnsureVmInput, MachineRef
from models.errors import ErrorType
from models.health_io import AVAILABLE, ResourceHealthReading
from models.inventory import Inventory, VmState
from models.naming import nic_name
from models.spec import MachineSpec


@dataclass
class _Failure:
    error_type: str
    times: int
    message: str
    next_retry_delay: timedelta | None


@dataclass
class FakeAzure:
    vm: VmState | None = None
    nic: bool = False
    disks: list[str] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    _failures: dict[str, list[_Failure]] = field(default_factory=dict)
    machine: str = ""

    def fail(self, name: ActivityName, error_type: ErrorType, times: int = 1, message: str = "injected",
             next_retry_delay: timedelta | None = None) -> None:
        self._failures.setdefault(name.value, []).append(_Failure(error_type, times, message, next_retry_delay))

    def _maybe_fail(self, name: ActivityName) -> None:
        self.calls.append(name.value)
        for failure in self._failures.get(name.value, []):
            if failure.times != 0:
                failure.times -= 1
                raise ApplicationError(failure.message, type=failure.error_type,
                                       non_retryable=False, next_retry_delay=failure.next_retry_delay)

    def inventory(self) -> Inventory:
        nics = [nic_name(self.machine)] if self.nic else []
        if self.vm is None:
            return Inventory(nic_names=nics, disk_names=list(self.disks))
        return Inventory(provider_id=f"azure:///vms/{self.machine}", node_name=self.machine, vm_state=self.vm,
                         nic_names=nics, disk_names=list(self.disks))

    @property
    def empty(self) -> bool:
        return self.inventory().is_empty

    def activities(self) -> list[Callable[..., Any]]:
        @activity.defn(name=ActivityName.READ_INVENTORY.value)
        async def read_inventory(spec: MachineSpec) -> Inventory:
            self.machine = spec.name
            self._maybe_fail(ActivityName.READ_INVENTORY)
            if self.empty:
                raise ApplicationError("nothing exists", type=ErrorType.NOT_FOUND, non_retryable=True)
            return self.inventory()

        @activity.defn(name=ActivityName.FIND_VM.value)
        async def find_vm(spec: MachineSpec) -> Inventory:
            self.machine = spec.name
            self._maybe_fail(ActivityName.FIND_VM)
            inventory = self.inventory()
            return inventory if inventory.has_vm else Inventory()

        @activity.defn(name=ActivityName.ENSURE_NIC.value)
        async def ensure_nic(spec: MachineSpec) -> str:
            self.machine = spec.name
            self._maybe_fail(ActivityName.ENSURE_NIC)
            self.nic = True
            return f"/nics/{nic_name(spec.name)}"

        @activity.defn(name=ActivityName.ENSURE_VM.value)
        async def ensure_vm(inp: EnsureVmInput) -> Inventory:
            self.disks = inp.spec.all_disk_names()
            try:
                self._maybe_fail(ActivityName.ENSURE_VM)
            except ApplicationError:
                self.vm = VmState(provisioning_state="Failed")  # like Azure: a failed create leaves a Failed VM
                raise
            self.vm = VmState(provisioning_state="Succeeded", power_state="running", agent="Ready")
            return self.inventory()

        @activity.defn(name=ActivityName.DELETE_VM.value)
        async def delete_vm(inp: DeleteVmInput) -> None:
            self._maybe_fail(ActivityName.DELETE_VM)
            if self.vm is not None:  # NIC and OS disk cascade (deleteOption Delete); data disks stay (Detach)
                self.vm, self.nic = None, False
                self.disks = [d for d in self.disks if not d.endswith("-os-disk")]

        @activity.defn(name=ActivityName.DELETE_NIC.value)
        async def delete_nic(inp: DeleteResourceInput) -> None:
            self._maybe_fail(ActivityName.DELETE_NIC)
            self.nic = False

        @activity.defn(name=ActivityName.DELETE_DISK.value)
        async def delete_disk(inp: DeleteResourceInput) -> None:
            self._maybe_fail(ActivityName.DELETE_DISK)
            self.disks = [d for d in self.disks if d != inp.name]

        @activity.defn(name=ActivityName.POWER_OFF.value)
        async def power_off(inp: MachineRef) -> None:
            self._maybe_fail(ActivityName.POWER_OFF)
            if self.vm is not None:
                self.vm = VmState(provisioning_state="Succeeded", power_state="stopped")

        @activity.defn(name=ActivityName.READ_RESOURCE_HEALTH.value)
        async def read_resource_health(inp: MachineRef) -> ResourceHealthReading:
            return ResourceHealthReading(state=AVAILABLE)

        return [read_inventory, find_vm, ensure_nic, ensure_vm, delete_vm, delete_nic, delete_disk, power_off,
                read_resource_health,
                *offerings_memory.activities()]  # the real shared memory (a workflow, no Azure), this worker's view
