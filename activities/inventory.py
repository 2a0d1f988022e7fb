"""A machine's inventory: what of it exists in Azure. NotFound only when no VM, no NIC and no disk of it exists.

Request budget: a machine whose VM exists costs ONE request (GET VM with instanceView lists its NICs
and disks). Only when the VM is absent do we look further: one Resource Graph query by ownership tag
(finds leftovers under names an older spec used) plus direct GETs of the deterministic NIC and disk
names, because the graph lags ARM and "absent" must never be concluded from the graph alone.
"""

import asyncio
from typing import Any

from azure.mgmt.compute import models as cm
from temporalio.exceptions import ApplicationError

from activities.arm import classified, get_or_none, log
from activities.clients import AzureClients
from activities.errors import error
from activities.graph import DISK_TYPE, NIC_TYPE, machine_query, query_all
from activities.ownership import Owner, Ownership, owner_of
from activities.retag import adopt_legacy_machine
from activities.vm_reader import disk_ref, get_vm, vm_inventory
from models.errors import ErrorType
from models.inventory import DataDiskRef, Inventory
from models.naming import data_disk_name, nic_name
from models.spec import MachineSpec


async def _owned_vm(clients: AzureClients, spec: MachineSpec) -> cm.VirtualMachine | None:
    """The VM when it is ours (a LEGACY one is adopted first); NotOwned when another owner's."""
    vm = await get_vm(clients, spec.resource_group, spec.name)
    if vm is None:
        return None
    owner = owner_of(clients, spec.resource_group, spec.name)
    if owner.require("VM", spec.name, vm.tags) == Ownership.LEGACY:
        await adopt_legacy_machine(clients, owner, spec, vm, vm_inventory(vm))
    return vm


async def find_vm(clients: AzureClients, spec: MachineSpec) -> Inventory:
    """The VM and what it names: one GET. Without a VM, the spec's data disks that exist (a GET each,
    none for a machine without data disks), so a re-created VM attaches them instead of creating
    them empty. Never the NIC: creation never skips work because a NIC is absent (ensure_nic checks)."""
    vm = await _owned_vm(clients, spec)
    if vm is not None:
        return vm_inventory(vm)
    kept = await existing_data_disks(clients, spec)
    return Inventory(disk_names=[disk.name for disk in kept], data_disks=kept)


async def existing_data_disks(clients: AzureClients, spec: MachineSpec) -> list[DataDiskRef]:
    """The spec's data disks that exist and are ours, read by name (with their uniqueId)."""
    wanted = [(data_disk_name(spec.name, d.lun, d.name), d.lun) for d in sorted(spec.data_disks, key=lambda d: d.lun)]
    if not wanted:
        return []
    async with classified(f"read data disks of {spec.name}"):
        bodies = await asyncio.gather(*(get_or_none(clients.compute.disks.get(spec.resource_group, name))
                                        for name, _ in wanted))
    owner = owner_of(clients, spec.resource_group, spec.name)
    found = [(name, body) for (name, _), body in zip(wanted, bodies, strict=True)]
    owned = set(_owned_names(owner, "disk", found, []))
    return [disk_ref(body, lun) for (name, lun), body in zip(wanted, bodies, strict=True) if name in owned]


async def read_inventory(clients: AzureClients, spec: MachineSpec) -> Inventory:
    not_ours: list[str] = []
    try:
        vm = await _owned_vm(clients, spec)
    except ApplicationError as exc:
        if exc.type != ErrorType.NOT_OWNED:
            raise
        # Another owner's VM is not part of this machine: never deleted, only shown.
        log(spec.name, "%s", exc.message)
        vm, not_ours = None, [f"VM {spec.name}"]
    if vm is not None:
        inventory = vm_inventory(vm)
        log(spec.name, "status: %s", inventory.summary())
        return inventory
    inventory = await _leftovers(clients, spec)
    inventory = inventory.model_copy(update={"not_ours": not_ours + inventory.not_ours})
    if inventory.is_empty and not inventory.not_ours:
        log(spec.name, "status: nothing exists")
        raise error(ErrorType.NOT_FOUND, f"machine {spec.name}: no VM, NIC or disk exists", benign=True)
    log(spec.name, "status: %s", inventory.summary())
    return inventory


async def _leftovers(clients: AzureClients, spec: MachineSpec) -> Inventory:
    """No VM: the tag query and direct GETs of every deterministic name, concurrently."""
    rg = spec.resource_group
    nic = nic_name(spec.name)
    disk_names = spec.all_disk_names()
    async with classified(f"find leftovers of {spec.name}"):
        rows, nic_body, *disk_bodies = await asyncio.gather(
            query_all(clients, machine_query(rg, spec.name), f"query resources of {spec.name}"),
            get_or_none(clients.network.network_interfaces.get(rg, nic)),
            *(get_or_none(clients.compute.disks.get(rg, d)) for d in disk_names),
        )
    owner = owner_of(clients, rg, spec.name)
    not_ours: list[str] = []
    nics = _owned_names(owner, "NIC", [(nic, nic_body)], not_ours)
    disks = _owned_names(owner, "disk", list(zip(disk_names, disk_bodies, strict=True)), not_ours)
    luns = {data_disk_name(spec.name, d.lun, d.name): d.lun for d in spec.data_disks}
    data = [disk_ref(body, luns[name]) for name, body in zip(disk_names, disk_bodies, strict=True)
            if name in luns and name in disks]
    # The graph only adds names we cannot derive from the current spec; ours were just read directly.
    derived = {nic.lower(), *(d.lower() for d in disk_names)}
    for row in rows:
        name = str(row.get("name", ""))
        if name.lower() in derived or not owner.may_use(row.get("tags")):
            continue
        kind = str(row.get("type", "")).lower()
        if kind == NIC_TYPE:
            nics.append(name)
        elif kind == DISK_TYPE:
            disks.append(name)
            properties = row.get("properties") or {}
            if not properties.get("osType"):  # a data disk of an older spec: data all the same
                data.append(DataDiskRef(name=name, id=str(row.get("id", "")),
                                        unique_id=str(properties.get("uniqueId", ""))))
    return Inventory(nic_names=nics, disk_names=disks, data_disks=data, not_ours=not_ours)


def _owned_names(owner: Owner, kind: str, found: list[tuple[str, Any]], not_ours: list[str]) -> list[str]:
    names = []
    for name, body in found:
        if body is None:
            continue
        if owner.may_use(body.tags):
            names.append(name)
        else:
            not_ours.append(f"{kind} {name}")
            log(owner.machine, "ignoring %s: %s", name, owner.not_owned(kind, name, body.tags).message)
    return names
