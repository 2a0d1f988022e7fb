"""A machine's tags in Azure: the PATCHes on its VM, NICs and disks that adopt LEGACY resources, carry
`update_spec`'s tag changes (`update_tags`) and tag the disks a VM PUT created implicitly (`tag_vm_disks`:
Azure leaves them untagged, and an untagged disk that outlives its VM would be invisible to the ownership
rules, never deleted and never found by the tag query).

Only resources we may use are patched (activities/ownership.py); another owner's are skipped and
reported. The VM goes last: adoption starts from a LEGACY VM, so a VM still LEGACY means "not done",
and the next read tries again.
"""

import asyncio
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from azure.mgmt.compute import models as cm
from azure.mgmt.network import models as nm

from activities.arm import classified, get_or_none, heartbeat_until, log, log_start
from activities.clients import AzureClients
from activities.ownership import Owner, Ownership, Tags, owner_of
from activities.reading.vm import get_vm, vm_inventory
from models.activity_io import TagsUpdated, UpdateTagsInput
from models.inventory import Inventory
from models.naming import nic_name
from models.spec import MachineSpec

NewTags = Callable[[Tags], dict[str, str]]


@dataclass
class Retagged:
    changed: list[str] = field(default_factory=list)  # "VM vm1", "NIC vm1-nic", "disk vm1-os-disk"
    not_ours: list[str] = field(default_factory=list)


def _unique(names: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for name in names:
        seen.setdefault(name.lower(), name)
    return list(seen.values())


async def patch_vm_tags(clients: AzureClients, rg: str, name: str, tags: dict[str, str]) -> None:
    poller = await clients.compute.virtual_machines.begin_update(rg, name, cm.VirtualMachineUpdate(tags=tags),
                                                                 polling=clients.polling())
    await poller.result()


async def patch_nic_tags(clients: AzureClients, rg: str, name: str, tags: dict[str, str]) -> None:
    await clients.network.network_interfaces.update_tags(rg, name, nm.TagsObject(tags=tags))


async def patch_public_ip_tags(clients: AzureClients, rg: str, name: str, tags: dict[str, str]) -> None:
    await clients.network.public_ip_addresses.update_tags(rg, name, nm.TagsObject(tags=tags))


async def patch_disk_tags(clients: AzureClients, rg: str, name: str, tags: dict[str, str], *,
                          final_get: bool = True) -> cm.Disk | None:
    """The disk's tags, waited for; without `final_get` no GET follows (None: Azure answers 202, no body)."""
    poller = await clients.compute.disks.begin_update(rg, name, cm.DiskUpdate(tags=tags),
                                                      polling=clients.polling(final_get=final_get))
    return await poller.result()


async def all_patched(work: list[Any]) -> list[Any]:
    """Every PATCH awaited to its end (none left running behind a failed activity); the first error raised.

    Heartbeats "" rather than a poller token: ensure_vm's retry resumes a VM *create* from a token, and
    with nothing to resume it adopts the VM and finds the still-untagged resources by GET.
    """
    outcomes = await heartbeat_until(asyncio.gather(*work, return_exceptions=True), "")
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return outcomes


async def retag_machine(
    clients: AzureClients, owner: Owner, spec: MachineSpec, vm: cm.VirtualMachine | None, attached: Inventory,
    new_tags: NewTags, *, spec_names: bool,
) -> Retagged:
    """Give the VM, the NICs/disks it names (`attached`, the VM's inventory) and with `spec_names` the
    spec's derived names `new_tags(old)`.

    Untagged disks are adopted only when our VM names them (Azure does not tag the disks a VM PUT makes).
    """
    rg = spec.resource_group
    nics, disks = list(attached.nic_names), list(attached.disk_names)
    ours_attached = {d.lower() for d in disks} if vm is not None else set()
    if spec_names:
        nics, disks = _unique([*nics, nic_name(spec.name)]), _unique([*disks, *spec.all_disk_names()])
    async with classified(f"read NICs and disks of {spec.name}"):
        nic_bodies = await asyncio.gather(*(get_or_none(clients.network.network_interfaces.get(rg, n)) for n in nics))
        disk_bodies = await asyncio.gather(*(get_or_none(clients.compute.disks.get(rg, d)) for d in disks))
    done = Retagged()
    work: list[Any] = []

    def consider(kind: str, name: str, tags: Tags, untagged: bool, patch: Callable[..., Any]) -> None:
        if not owner.may_use(tags, untagged=untagged):
            done.not_ours.append(f"{kind} {name}")
            log(spec.name, "leaving %s %s alone: %s", kind, name, owner.not_owned(kind, name, tags).message)
            return
        wanted = new_tags(tags)
        if wanted != dict(tags or {}):
            done.changed.append(f"{kind} {name}")
            work.append(patch(clients, rg, name, wanted))

    for name, nic in zip(nics, nic_bodies, strict=True):
        if nic is not None:
            consider("NIC", name, nic.tags, False, patch_nic_tags)
    for name, disk in zip(disks, disk_bodies, strict=True):
        if disk is not None:
            consider("disk", name, disk.tags, name.lower() in ours_attached, patch_disk_tags)
    async with classified(f"tag NICs and disks of {spec.name}"):
        await all_patched(work)
    if vm is not None:
        work = []
        consider("VM", spec.name, vm.tags, False, patch_vm_tags)
        async with classified(f"tag VM {spec.name}"):
            await all_patched(work)
    if done.changed:
        log(spec.name, "tagged %s", ", ".join(done.changed))
    return done


async def adopt_legacy_machine(
    clients: AzureClients, owner: Owner, spec: MachineSpec, vm: cm.VirtualMachine, attached: Inventory,
) -> None:
    """A LEGACY VM (machine tag only) was found: give it and what it names our owner tag, once.

    Best effort: a read must not fail because Azure refused a tag PATCH (say, the VM is busy); the VM
    stays LEGACY then, and the next read tries again.
    """
    def claim(tags: Tags) -> dict[str, str]:
        return owner.claimed(tags) if owner.classify(tags) != Ownership.OURS else dict(tags or {})

    try:
        await retag_machine(clients, owner, spec, vm, attached, claim, spec_names=False)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # logged: the read's answer stands
        log(spec.name, "could not adopt the VM yet (%s); trying again at the next read", exc)


async def update_tags(clients: AzureClients, inp: UpdateTagsInput) -> TagsUpdated:
    """update_spec's tag change: the spec's tags on every resource of the machine that is ours; tags the
    previous spec set and this one does not are removed; tags others added (Azure Policy, people) stay."""
    spec = inp.spec
    owner = owner_of(clients, spec.resource_group, spec.name)
    wanted = owner.tags(spec)
    dropped = {key.lower() for key in (*inp.remove, *wanted)}

    def new_tags(tags: Tags) -> dict[str, str]:
        return {**{k: v for k, v in (tags or {}).items() if k.lower() not in dropped}, **wanted}

    vm = await get_vm(clients, spec.resource_group, spec.name)
    attached = vm_inventory(vm) if vm is not None else Inventory()
    done = await retag_machine(clients, owner, spec, vm, attached, new_tags, spec_names=True)
    return TagsUpdated(changed=done.changed, not_ours=done.not_ours)


async def tag_vm_disks(clients: AzureClients, spec: MachineSpec, inventory: Inventory, *, created: bool,
                       attached: Collection[str] = (), data_only: bool = False) -> dict[str, str]:
    """Give every disk the VM names our ownership tags; returns disk name -> uniqueId of the disks it saw.

    A VM we just created names only disks its PUT made (an existing name is a 409) and the disks it
    `attached` (ours already: read before the PUT), so the former are known to be untagged: no GET
    needed. Of those only the data disks are tagged: they outlive the VM (deleteOption Detach), while its OS
    disk has deleteOption Delete and goes in the VM's own DELETE, never left for the ownership rules to judge:
    a write a machine fewer on Azure's write budget. An adopted VM's disks may be tagged already, or another
    machine's: read them. `data_only`: the VM is ours and its OS disk has deleteOption Delete (a create of ours
    that failed): only its data disks can outlive it.
    """
    skip = {name.lower() for name in attached}
    data = {disk.name.lower() for disk in inventory.data_disks}
    names = [name for name in inventory.disk_names
             if name.lower() not in skip and (not (created or data_only) or name.lower() in data)]
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
