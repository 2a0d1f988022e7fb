"""Tag the disks a VM PUT created implicitly: Azure leaves them untagged, and an untagged disk that
outlives its VM would be invisible to the ownership rules (never deleted, never found by the tag query).
"""

import asyncio
from collections.abc import Collection

from azure.mgmt.compute import models as cm

from activities.arm import classified, get_or_none, log, log_start
from activities.clients import AzureClients
from activities.ownership import Owner, Ownership, owner_of
from activities.retag import all_patched, patch_disk_tags
from models.inventory import Inventory
from models.spec import MachineSpec


async def tag_vm_disks(clients: AzureClients, spec: MachineSpec, inventory: Inventory, *, created: bool,
                       attached: Collection[str] = ()) -> dict[str, str]:
    """Give every disk the VM names our ownership tags; returns disk name -> uniqueId of the disks it saw.

    A VM we just created names only disks its PUT made (an existing name is a 409) and the disks it
    `attached` (ours already: read before the PUT), so the former are known to be untagged: no GET
    needed. An adopted VM's disks may be tagged already, or another machine's: read them.
    """
    skip = {name.lower() for name in attached}
    names = [name for name in inventory.disk_names if name.lower() not in skip]
    if not names:
        return {}
    seen: dict[str, str] = {}
    owner = owner_of(clients, spec.resource_group, spec.name)
    if created:
        todo = {name: owner.tags(spec) for name in names}
    else:
        todo = await _untagged(clients, spec, owner, names, seen)
    if not todo:
        return seen
    log_start(spec.name, "tagging disks %s", ", ".join(todo))
    # Only a data disk's uniqueId is worth the GET after its PATCH (the status shows it); the OS disk's is not.
    data = {disk.name.lower() for disk in inventory.data_disks}
    patches = [_patch(clients, spec, name, tags, final_get=name.lower() in data) for name, tags in todo.items()]
    for disk in await all_patched(patches):
        if disk is not None and disk.name and disk.unique_id:
            seen[disk.name] = disk.unique_id
    return seen


async def _untagged(clients: AzureClients, spec: MachineSpec, owner: Owner, names: list[str],
                    seen: dict[str, str]) -> dict[str, dict[str, str]]:
    """Disks lacking our tags, with the tags to give them (theirs kept, ours added); another owner's skipped."""
    rg = spec.resource_group
    async with classified(f"read disks of {spec.name}"):
        disks = await asyncio.gather(*(get_or_none(clients.compute.disks.get(rg, n)) for n in names))
    todo: dict[str, dict[str, str]] = {}
    for name, disk in zip(names, disks, strict=True):
        if disk is not None and disk.unique_id:
            seen[name] = disk.unique_id
        tags = dict((disk.tags if disk else None) or {})
        ownership = owner.classify(tags)
        if disk is None or ownership == Ownership.OURS:
            continue
        if ownership == Ownership.FOREIGN:
            log(spec.name, "leaving disk %s alone: %s", name, owner.not_owned("disk", name, tags).message)
            continue
        todo[name] = {**tags, **owner.tags(spec)}
    return todo


async def _patch(clients: AzureClients, spec: MachineSpec, name: str, tags: dict[str, str], *,
                 final_get: bool) -> cm.Disk | None:
    async with classified(f"tag disk {name}"):
        return await patch_disk_tags(clients, spec.resource_group, name, tags, final_get=final_get)
