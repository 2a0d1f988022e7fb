"""Turning a VM's storageProfile into disk resources (OS disk, Empty data disks, attached disks)."""

from __future__ import annotations

import copy
import uuid
from dataclasses import dataclass
from typing import Any

from emulator.arm import arm_ids, errors
from emulator.arm.arm_ids import Scope
from emulator.arm.rules.names import check_name
from emulator.arm.store import Resource
from emulator.compute.disks import DISK_TYPE, DisksBackend, check_size
from emulator.compute.vm_placement import encrypt_with_set, ephemeral_os_entry, is_ephemeral_entry
from emulator.state import EmulatorState


@dataclass
class PlannedDisk:
    """One disk slot of the VM: an existing disk to attach or a new one to create."""

    entry: dict[str, Any]  # the storageProfile entry as the VM will echo it
    name: str
    existing: Resource | None
    create_option: str
    size_gb: int
    sku: str


def plan_disks(state: EmulatorState, scope: Scope, vm_id: str, vm_name: str,
               storage: dict[str, Any]) -> tuple[PlannedDisk | None, list[PlannedDisk]]:
    """Validate the storage profile without side effects; raises ArmError on a bad reference."""
    os_disk = storage.get("osDisk")
    planned_os = _plan(state, scope, vm_id, os_disk, f"{vm_name}_OsDisk_1_{uuid.uuid4().hex}") if os_disk else None
    planned_data: list[PlannedDisk] = []
    seen_luns: set[int] = set()
    # Azure detaches a data disk marked toBeDetached; it leaves the VM's list.
    storage["dataDisks"] = [d for d in storage.get("dataDisks") or [] if not d.get("toBeDetached")]
    for entry in storage["dataDisks"]:
        lun = int(entry.get("lun", 0))
        if not 0 <= lun <= 63:
            raise errors.out_of_range("dataDisk.lun", lun, 0, 63)
        if lun in seen_luns:
            raise errors.invalid(f"Data disks with duplicate LUN {lun} are not allowed.",
                                 target="dataDisks.lun")
        seen_luns.add(lun)
        planned_data.append(_plan(state, scope, vm_id, entry, f"{vm_name}_disk{lun + 2}_{uuid.uuid4().hex}"))
    return planned_os, planned_data


def detaching_entries(existing: Resource | None, storage: dict[str, Any]) -> list[dict[str, Any]]:
    """The data disks a write marks `toBeDetached`, as Azure lists them until the update ends: the VM's entry for
    that LUN, marked, with the request's `detachOption` (Microsoft's `VirtualMachine_Update_*Detach*` examples).
    The disk itself is detached at once; `drop_detached` removes the entries when the update succeeds."""
    if existing is None:
        return []
    current = {int(d.get("lun", 0)): d for d in existing.properties.get("storageProfile", {}).get("dataDisks", [])}
    entries = []
    for entry in storage.get("dataDisks") or []:
        lun = int(entry.get("lun", 0))
        if entry.get("toBeDetached") and lun in current:
            shown = {**copy.deepcopy(current[lun]), "toBeDetached": True}
            if entry.get("detachOption"):
                shown["detachOption"] = entry["detachOption"]
            entries.append(shown)
    return entries


def drop_detached(properties: dict[str, Any]) -> None:
    """The update ended: the disks it detached leave the VM's list."""
    storage = properties.get("storageProfile") or {}
    if any(d.get("toBeDetached") for d in storage.get("dataDisks") or []):
        storage["dataDisks"] = [d for d in storage["dataDisks"] if not d.get("toBeDetached")]


def _plan(state: EmulatorState, scope: Scope, vm_id: str, entry: dict[str, Any],
          default_name: str) -> PlannedDisk:
    entry = copy.deepcopy(entry)
    managed = entry.get("managedDisk") or {}
    option = entry.get("createOption", "Empty")
    if option.lower() == "attach":
        ref = managed.get("id")
        if not ref:
            raise errors.invalid("Required parameter 'managedDisk.id' is missing (null).",
                                 target="dataDisk.managedDisk.id")
        disk = state.store.get(ref)
        if disk is None:
            raise errors.ArmError(404, "NotFound", f"Disk {ref} could not be found.",
                                  target="dataDisk.managedDisk.id")
        _check_free(disk, vm_id)
        return PlannedDisk(entry, disk.name, disk, option, disk.properties.get("diskSizeGB", 30),
                           disk.body["sku"]["name"])
    if entry.get("name"):  # a disk the VM creates is named by the same rule as one created alone
        check_name("disks", entry["name"])
    name = entry.get("name") or default_name
    existing = state.store.get(scope.resource_id(DISK_TYPE, name))
    if existing is not None:
        owner = existing.body.get("managedBy")
        if not owner or arm_ids.key(owner) != arm_ids.key(vm_id):
            raise errors.ArmError(
                409, "Conflict",
                f"Disk {name} already exists in resource group {scope.resource_group.upper()}. "
                "Only CreateOption.Attach is supported.",
            )
    check_size(entry.get("diskSizeGB"))
    if option.lower() == "empty" and not entry.get("diskSizeGB"):
        raise errors.invalid("Required parameter 'diskSizeGB' is missing (null).", target="dataDisk.diskSizeGB")
    size = int(entry.get("diskSizeGB") or 30)
    return PlannedDisk(entry, name, existing, option, size, managed.get("storageAccountType") or "Premium_LRS")


def _check_free(disk: Resource, vm_id: str) -> None:
    owner = disk.body.get("managedBy")
    if owner and arm_ids.key(owner) != arm_ids.key(vm_id):
        raise errors.ArmError(
            409, "ConflictingUserInput",
            f"Cannot attach the disk {disk.name} to VM {vm_id} because it is already attached to VM {owner}. "
            "A disk can be attached to only one VM at a time.",
            target=disk.id,
        )


def realize(disks: DisksBackend, scope: Scope, vm_id: str, location: str, planned: PlannedDisk,
            os_type: str | None, zones: list[str] | None) -> dict[str, Any]:
    """Create or attach the disk; returns the storageProfile entry the VM echoes."""
    disk = planned.existing
    if os_type and disk is None and is_ephemeral_entry(planned.entry):
        return ephemeral_os_entry(scope.resource_id(DISK_TYPE, planned.name), planned.entry, os_type)
    if disk is None:
        disk = disks.create(scope, planned.name, location, sku=planned.sku, size_gb=planned.size_gb,
                            create_option=planned.create_option, os_type=os_type, zones=zones)
        encrypt_with_set(disk.properties, planned.entry)
    disks.attach(disk, vm_id)
    entry = planned.entry
    entry["name"] = disk.name
    entry.setdefault("caching", "ReadWrite" if os_type else "None")
    entry["managedDisk"] = {**(entry.get("managedDisk") or {}), "id": disk.id,
                            "storageAccountType": disk.body["sku"]["name"]}
    entry["diskSizeGB"] = disk.properties.get("diskSizeGB", planned.size_gb)
    entry.setdefault("deleteOption", "Detach")
    if os_type:
        entry["osType"] = os_type
    else:
        entry.setdefault("toBeDetached", False)
    return entry
