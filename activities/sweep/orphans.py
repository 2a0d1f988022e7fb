"""check_orphan: the fleet sweep's last look before it deletes an orphan, straight from the sources.

The survey came from Resource Graph and visibility, which both lag. Here the machine's workflow is
described (strongly consistent) and every resource is read by ARM GET: a workflow that is open now,
a resource that is gone, one that another owner holds or that older azmc tagged, or one younger than
the grace period is left alone, with the reason. What remains is deleted by the driver's delete
activities (delete_vm, delete_nic, delete_disk, delete_public_ip), which check the owner tag once more.

The grace counts from the newest of: the workflow's close, a resource's creation, its mark (the tag
azmc-orphan-seen, models/sweep.py). When Temporal knows no workflow of the owner, a resource without a
mark is seen for the first time: the verdict names it `to_mark`, and nothing of that machine goes yet.
"""

import asyncio
from datetime import datetime, timedelta
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from activities.arm import get_or_none
from activities.clients import AzureClients
from activities.ownership import Owner, Ownership, tag_value
from activities.reading.vm import vm_inventory
from activities.request_count import counting
from models.naming import ORPHAN_SEEN_TAG
from models.sweep import (
    OrphanCheckInput,
    OrphanMachine,
    OrphanVerdict,
    Skipped,
    SkipReason,
    orphan_mark,
    read_orphan_mark,
)


async def workflow_state(client: Client, wf_id: str) -> tuple[bool, datetime | None]:
    """(open now, when the latest run closed); (False, None) when the server knows no such workflow."""
    try:
        description = await client.get_workflow_handle(wf_id).describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return False, None
        raise
    return description.status == WorkflowExecutionStatus.RUNNING, description.close_time


def _created(body: Any) -> datetime | None:
    """When Azure made the resource (VMs and disks say; NICs do not)."""
    value = getattr(body, "time_created", None)
    return value if isinstance(value, datetime) else None


def resource_names(orphan: OrphanMachine) -> list[tuple[str, str]]:
    return ([("VM", orphan.vm)] if orphan.vm else []) + [("NIC", n) for n in orphan.nics] + \
        [("disk", d) for d in orphan.disks] + [("public IP", p) for p in orphan.public_ips]


async def read_resource(clients: AzureClients, rg: str, kind: str, name: str) -> Any:
    """The SDK model of the resource, or None when it is gone."""
    if kind == "VM":
        found = await get_or_none(clients.compute.virtual_machines.get(rg, name))
    elif kind == "NIC":
        found = await get_or_none(clients.network.network_interfaces.get(rg, name))
    elif kind == "public IP":
        found = await get_or_none(clients.network.public_ip_addresses.get(rg, name))
    else:
        found = await get_or_none(clients.compute.disks.get(rg, name))
    return found


def _verdict_on(owner: Owner, kind: str, name: str, body: Any,
                vm_disks: set[str]) -> SkipReason | None:  # fmt: skip
    if body is None:
        return SkipReason.GONE
    ownership = owner.classify(body.tags)
    if ownership == Ownership.OURS:
        return None
    if ownership == Ownership.UNTAGGED and kind == "disk" and name in vm_disks:
        return None  # the OS disk a VM PUT made (Azure leaves it untagged): it goes with our VM
    return SkipReason.LEGACY if ownership == Ownership.LEGACY else SkipReason.NOT_OURS


async def check_orphan(clients: AzureClients, client: Client, inp: OrphanCheckInput) -> OrphanVerdict:
    orphan = inp.orphan
    if not clients.installation_id:
        raise ValueError("the fleet sweep needs the installation id")
    owner = Owner(clients.installation_id, orphan.workflow_id, orphan.name)
    names = resource_names(orphan)
    is_open, closed_at = await workflow_state(client, orphan.workflow_id)
    if is_open:
        return OrphanVerdict(workflow_id=orphan.workflow_id, skipped=[
            Skipped(resource=f"{kind} {name}", reason=SkipReason.WORKFLOW_OPEN, workflow_id=orphan.workflow_id,
                    detail=f"workflow {orphan.workflow_id} is running") for kind, name in names])
    with counting() as requests:
        bodies = await asyncio.gather(*(read_resource(clients, orphan.resource_group, kind, name)
                                        for kind, name in names))
    vm_body = next((b for (kind, _), b in zip(names, bodies, strict=True) if kind == "VM"), None)
    ours = vm_body is not None and owner.classify(vm_body.tags) == Ownership.OURS
    vm_disks = set(vm_inventory(vm_body).disk_names) if ours and vm_body is not None else set()
    kept: list[tuple[str, str]] = []
    unmarked: list[tuple[str, str]] = []
    with_vm: list[tuple[str, str]] = []  # untagged disks of our VM: they go with it, and are seen with it
    skipped: list[Skipped] = []
    times = [closed_at] if closed_at else []
    for (kind, name), body in zip(names, bodies, strict=True):
        reason = _verdict_on(owner, kind, name, body, vm_disks)
        if reason is not None:
            skipped.append(Skipped(resource=f"{kind} {name}", reason=reason, workflow_id=orphan.workflow_id))
            continue
        kept.append((kind, name))
        mark = read_orphan_mark(tag_value(body.tags, ORPHAN_SEEN_TAG))
        times += [t for t in (_created(body), mark) if t is not None]
        if closed_at is None and mark is None and owner.classify(body.tags) == Ownership.OURS:
            unmarked.append((kind, name))  # Temporal knows no workflow to measure from: its first sighting
        elif owner.classify(body.tags) == Ownership.UNTAGGED:
            with_vm.append((kind, name))
    verdict = OrphanVerdict(workflow_id=orphan.workflow_id, arm_requests=sum(requests.values()))
    if unmarked:
        return _first_seen(verdict, orphan, inp, kept, unmarked, with_vm, skipped)
    if kept and not times:
        skipped += [Skipped(resource=f"{k} {n}", reason=SkipReason.AGE_UNKNOWN, workflow_id=orphan.workflow_id,
                            detail="no creation time, no closed workflow and no mark to measure from") for k, n in kept]
        return verdict.model_copy(update={"skipped": skipped})
    if not kept:
        return verdict.model_copy(update={"skipped": skipped})
    since = max(times)  # the newest of: its workflow closed, a resource was made, it was marked
    orphaned_for = inp.now - since
    if orphaned_for < inp.orphan_grace:
        skipped += [Skipped(resource=f"{k} {n}", reason=SkipReason.YOUNGER_THAN_GRACE, workflow_id=orphan.workflow_id,
                            detail=f"orphaned for {_whole(orphaned_for)} of a {_whole(inp.orphan_grace)} grace",
                            orphan_since=since, eligible_at=since + inp.orphan_grace) for k, n in kept]
        kept = []
    return verdict.model_copy(update={
        "vm": next((n for k, n in kept if k == "VM"), ""), "nics": [n for k, n in kept if k == "NIC"],
        "disks": [n for k, n in kept if k == "disk"], "public_ips": [n for k, n in kept if k == "public IP"],
        "skipped": skipped,
        "orphaned_for_s": orphaned_for.total_seconds()})


def _first_seen(verdict: OrphanVerdict, orphan: OrphanMachine, inp: OrphanCheckInput, kept: list[tuple[str, str]],
                unmarked: list[tuple[str, str]], with_vm: list[tuple[str, str]],
                skipped: list[Skipped]) -> OrphanVerdict:
    """Temporal knows no workflow of the owner and some resource carries no mark: the orphan is seen for the
    first time now. Nothing goes; the sweep marks what is unmarked, and the grace counts from this sweep."""
    seen_at = inp.now.replace(microsecond=0)  # as the mark says it
    mark = orphan_mark(seen_at)
    eligible_at = seen_at + inp.orphan_grace
    for kind, name in kept:
        first = (kind, name) in unmarked or (kind, name) in with_vm
        detail = (f"Temporal knows no workflow {orphan.workflow_id}: first seen now; the sweep marks it "
                  f"{ORPHAN_SEEN_TAG}={mark} (a dry run does not)" if (kind, name) in unmarked else
                  f"Temporal knows no workflow {orphan.workflow_id}: first seen now, with the VM it goes with"
                  if first else "marked before; other resources of its machine are first seen now")
        skipped.append(Skipped(resource=f"{kind} {name}", workflow_id=orphan.workflow_id, detail=detail,
                               reason=SkipReason.FIRST_SEEN if first else SkipReason.YOUNGER_THAN_GRACE,
                               orphan_since=seen_at, eligible_at=eligible_at))
    to_mark = orphan.model_copy(update={
        "vm": next((n for k, n in unmarked if k == "VM"), ""), "nics": [n for k, n in unmarked if k == "NIC"],
        "disks": [n for k, n in unmarked if k == "disk"], "public_ips": [n for k, n in unmarked if k == "public IP"]})
    return verdict.model_copy(update={"skipped": skipped, "to_mark": to_mark, "first_seen": seen_at})


def _whole(value: timedelta) -> str:
    return str(timedelta(seconds=max(int(value.total_seconds()), 0)))
