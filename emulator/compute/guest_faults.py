"""Guest faults (`/_emulator/guest-faults`): what goes wrong inside a VM, which Azure's control plane only
sees through the VM agent, Resource Health and the guest's own endpoints.

A fault hits one VM: the VM of that name when it is posted, else the next VM created under that name. It
ends with that VM (a VM re-created under the same name is healthy), with a DELETE, or with the repair that
clears it (hang and kernel_panic: restart or redeploy, as a reboot clears a hung guest; host_failure: redeploy;
boot_failure, a broken image or bootstrap: none). A `persistent` fault survives every repair: a guest that stays
hung until it is re-created.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from emulator.arm import arm_ids
from emulator.arm.store import Resource

VM_TYPE = "microsoft.compute/virtualmachines"
FAULT_KINDS = ("hang", "boot_failure", "kernel_panic", "host_failure")
# Which repair clears which fault; boot_failure survives every repair.
_CLEARED_BY = {"restart": {"hang", "kernel_panic"}, "redeploy": {"hang", "kernel_panic", "host_failure"}}


@dataclass
class GuestFault:
    id: str
    name: str
    resource_group: str | None
    fault: str
    created: str
    persistent: bool = False
    vm_key: str | None = None  # the VM it hit (lower-case id); None until that VM exists

    def record(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "resource_group": self.resource_group, "fault": self.fault,
                "persistent": self.persistent, "created": self.created}

    def aims_at(self, vm: Resource) -> bool:
        return self.name.lower() == vm.name.lower() and (
            self.resource_group is None or self.resource_group.lower() == vm.resource_group.lower())


def parse(body: Any) -> tuple[str, str, str | None, bool]:
    """(name, fault, resource_group, persistent) of a POST body; ValueError names the field that is wrong."""
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object with 'name' and 'fault'")
    unknown = sorted(set(body) - {"name", "fault", "resource_group", "persistent"})
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}; known: name, fault, resource_group, persistent")
    name, fault, group = body.get("name"), body.get("fault"), body.get("resource_group")
    persistent = body.get("persistent", False)
    if not isinstance(persistent, bool):
        raise ValueError("'persistent' must be true or false")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("'name' must be the VM's name (a non-empty string)")
    if fault not in FAULT_KINDS:
        raise ValueError(f"'fault' must be one of {', '.join(FAULT_KINDS)}")
    if group is not None and (not isinstance(group, str) or not group.strip()):
        raise ValueError("'resource_group' must be a non-empty string when given")
    return name, fault, group, persistent


class GuestFaults:
    def __init__(self) -> None:
        self._faults: dict[str, GuestFault] = {}
        self._ids = itertools.count(1)

    def add(self, name: str, fault: str, resource_group: str | None, created: str,
            existing: list[Resource], persistent: bool = False) -> GuestFault:
        """A new fault, hitting the first of `existing` (the VMs of the subscription) it aims at."""
        record = GuestFault(f"guest-fault-{next(self._ids)}", name, resource_group, fault, created, persistent)
        target = next((vm for vm in sorted(existing, key=lambda v: arm_ids.key(v.id)) if record.aims_at(vm)), None)
        if target is not None:
            record.vm_key = arm_ids.key(target.id)
        self._faults[record.id] = record
        return record

    def on_change(self, key: str, resource: Resource | None) -> None:
        """Store hook: a VM's deletion ends its faults; a new VM takes the waiting faults aimed at it."""
        if resource is None:
            for fault_id in [f.id for f in self._faults.values() if f.vm_key == key]:
                del self._faults[fault_id]
            return
        if resource.type.lower() != VM_TYPE:
            return
        for fault in self._faults.values():
            if fault.vm_key is None and fault.aims_at(resource):
                fault.vm_key = key

    def of(self, vm: Resource) -> list[GuestFault]:
        key = arm_ids.key(vm.id)
        return [f for f in self._faults.values() if f.vm_key == key]

    def repaired(self, vm: Resource, repair: str) -> None:
        """A restart or redeploy of `vm` succeeded: the faults it clears are over."""
        key = arm_ids.key(vm.id)
        for fault_id in [f.id for f in self._faults.values()
                         if f.vm_key == key and not f.persistent and f.fault in _CLEARED_BY[repair]]:
            del self._faults[fault_id]

    def list(self) -> list[dict[str, Any]]:
        return [f.record() for f in self._faults.values()]

    def remove(self, fault_id: str) -> bool:
        return self._faults.pop(fault_id, None) is not None

    def clear(self) -> None:
        self._faults.clear()
