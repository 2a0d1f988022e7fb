"""Tag PATCHes on a machine's VM, NICs and disks: adopting LEGACY resources, and `update_spec`'s tag changes.

Only resources we may use are patched (activities/ownership.py); another owner's are skipped and
reported. The VM goes last: adoption starts from a LEGACY VM, so a VM still LEGACY means "not done",
and the next read tries again.
"""

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from azure.mgmt.compute import models as cm
from azure.mgmt.network import models as nm

from activities.arm import classified, get_or_none, heartbeat_until, log
from activities.clients import AzureClients
from activities.ownership import Owner, Ownership, Tags
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
