"""Whether a VM DELETE is a force deletion, and Azure's refusal of one.

Azure's force delete skips the guest's graceful shutdown and some of the VM's cleanup, so it ends sooner
(emulator/arm/latency.py: `virtualMachines.forceDelete`). Since api-version 2024-11-01 a DELETE that does not
say `forceDeletion=false` is forced when every disk of the VM (OS disk included) has deleteOption Delete.
"""

from __future__ import annotations

from emulator.arm.store import Resource
from emulator.state import EmulatorState

FORCED_TIMING = "virtualMachines.forceDelete"
PLAIN_TIMING = "virtualMachines.delete"
FORCED_FAULT = "virtualMachines.forceDelete"  # a fault rule's operation aimed at forced VM DELETEs only


def parse_flag(value: str | None) -> bool | None:
    """The query's `forceDeletion`: True, False, or None when absent (or not a boolean, which ARM ignores)."""
    if value is None:
        return None
    return {"true": True, "false": False}.get(value.strip().lower())


def refused_force(state: EmulatorState, name: str) -> None:
    """Azure refuses to force-delete a VM that manages updates with maintenance control (409
    OperationNotAllowed, "Operation 'ForceDelete' is not allowed on resource ..."), reported by CAPZ (issue
    2792); the emulator keeps no maintenance configurations, so a `virtualMachines.forceDelete` fault stands
    for one: it hits only a forced DELETE, and the same DELETE without force goes through."""
    fault = state.faults.take(FORCED_FAULT, name, "request")
    if fault is not None and fault.fails:
        raise fault.error()


def every_disk_goes(vm: Resource) -> bool:
    storage = vm.properties.get("storageProfile") or {}
    disks = ([storage["osDisk"]] if storage.get("osDisk") else []) + list(storage.get("dataDisks") or [])
    return bool(disks) and all(str(d.get("deleteOption", "Detach")).lower() == "delete" for d in disks)


def is_forced(vm: Resource, asked: bool | None) -> bool:
    """Asked for, or not refused while every disk goes with the VM (Azure's default since 2024-11-01)."""
    return asked if asked is not None else every_disk_goes(vm)
