"""mark_orphan: the fleet sweep's mark on an orphan whose owner workflow Temporal does not know (the tag
azmc-orphan-seen, models/sweep.py), and its removal once that workflow is open again.

Only a resource whose owner tag names the orphan's workflow is written, after a fresh GET (another
owner's, an untagged or a LEGACY one is left alone); a valid mark already there stays, so the first
sighting counts. Every other tag is kept.
"""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from activities.arm import classified, log
from activities.clients import AzureClients
from activities.ownership import Owner, Ownership, Tags, tag_value
from activities.sweep.orphans import read_resource, resource_names
from activities.tags import all_patched, patch_disk_tags, patch_nic_tags, patch_public_ip_tags, patch_vm_tags
from models.naming import ORPHAN_SEEN_TAG
from models.sweep import OrphanMarkInput, orphan_mark, read_orphan_mark

_PATCH: dict[str, Callable[..., Awaitable[Any]]] = {
    "VM": patch_vm_tags, "NIC": patch_nic_tags, "disk": patch_disk_tags, "public IP": patch_public_ip_tags}


def _without_mark(tags: Tags) -> dict[str, str]:
    return {k: v for k, v in (tags or {}).items() if k.lower() != ORPHAN_SEEN_TAG}


def new_tags(tags: Tags, mark: str | None) -> dict[str, str] | None:
    """The resource's tags with the mark set (`mark`) or removed (None); None when nothing changes."""
    current = tag_value(tags, ORPHAN_SEEN_TAG)
    if mark is None:
        return _without_mark(tags) if current is not None else None
    if read_orphan_mark(current) is not None:
        return None  # seen before: the first sighting counts
    return {**_without_mark(tags), ORPHAN_SEEN_TAG: mark}


async def mark_orphan(clients: AzureClients, inp: OrphanMarkInput) -> list[str]:
    """The resources whose mark was written (or removed), e.g. ["NIC vm1-nic"]."""
    orphan = inp.orphan
    if not clients.installation_id:
        raise ValueError("the fleet sweep needs the installation id")
    owner = Owner(clients.installation_id, orphan.workflow_id, orphan.name)
    mark = orphan_mark(inp.seen_at) if inp.seen_at is not None else None
    rg, names = orphan.resource_group, resource_names(orphan)
    async with classified(f"read the resources of {orphan.workflow_id}"):
        bodies = await asyncio.gather(*(read_resource(clients, rg, kind, name) for kind, name in names))
    changed: list[str] = []
    work: list[Any] = []
    for (kind, name), body in zip(names, bodies, strict=True):
        if body is None or owner.classify(body.tags) != Ownership.OURS:
            continue
        tags = new_tags(body.tags, mark)
        if tags is not None:
            changed.append(f"{kind} {name}")
            work.append(_PATCH[kind](clients, rg, name, tags))
    what = f"mark {ORPHAN_SEEN_TAG}={mark}" if mark else f"remove the mark {ORPHAN_SEEN_TAG}"
    async with classified(f"{what} on the resources of {orphan.workflow_id}"):
        await all_patched(work)
    if changed:
        log(orphan.name, "%s: %s", what, ", ".join(changed))
    return changed
