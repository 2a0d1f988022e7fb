"""The read a paced write checks ownership against, shared by the machines of a group that write at once.

A write Azure cannot condition (a NIC PUT, a VM power-off or DELETE) is checked against a read at most TRUST_S old
(activities/read_cache.py). In a fleet those writes wait their turn in Azure's budgets (models/pace.py), minutes
at a time, so the read their machine's flow made has aged past TRUST_S and each would read again: one request a
machine (bench.fleet_churn counted 0.8 NIC GETs a machine coming up, 1.6 VM GETs a machine going away). When
several machines of a group ask within CROWD_WINDOW_S, one list of the group (its resources, or its VMs) answers
them all, read again only once the last is TRUST_S old: a few reads a minute for a whole fleet. A lone machine is
told nothing (None) and reads its resource itself, as before.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from activities.read_cache import TRUST_S
from activities.reading.group_listing import Listed, listed, own_names, pages_of

CROWD_WINDOW_S = 5.0
CROWD = 3  # machines of one group asking within the window
# A group's list is worth sharing only while it is quick and cheap: one that takes longer than this is old too soon
# after it ends to answer many, and keeps its askers' writes waiting (a 10,000-machine group's 26 pages took 70 s on
# the emulator, past the writes' heartbeat timeout); the group's machines then read their own for SLOW_GROUP_S.
SLOW_LIST_S = TRUST_S / 3
SLOW_GROUP_S = 600.0


@dataclass
class _Snapshot:
    started: float = float("-inf")
    items: list[dict[str, Any]] = field(default_factory=list)
    reading: asyncio.Task[None] | None = None
    reading_started: float = float("-inf")
    askers: dict[str, float] = field(default_factory=dict)
    own_reads_until: float = float("-inf")  # the last list was slow: each machine reads its own until then


GroupList = Callable[[str], AsyncIterator[dict[str, Any]]]  # resource group -> its items, as ARM's JSON


@dataclass
class GroupSnapshot:
    """One kind of list (a group's resources, or its VMs), one snapshot per resource group."""

    list_group: GroupList
    clock: Callable[[], float] = time.monotonic
    _groups: dict[str, _Snapshot] = field(default_factory=dict)
    reads: int = 0  # full lists made

    async def items(self, resource_group: str, machine: str) -> list[dict[str, Any]] | None:
        """The group's items from a list at most TRUST_S old (read now when a crowd asks); None: read your own."""
        group = self._groups.setdefault(resource_group.lower(), _Snapshot())
        now = self.clock()
        group.askers = {m: at for m, at in group.askers.items() if at > now - CROWD_WINDOW_S}
        group.askers[machine.lower()] = now
        if group.started >= now - TRUST_S:
            return group.items
        # A list of P pages is P reads: worth it only for a crowd larger than that, and only while lists are quick.
        pages = pages_of(len(group.items)) if group.items else 0
        if len(group.askers) < max(CROWD, pages + 1) or now < group.own_reads_until:
            return None
        if group.reading is None or group.reading.done() or group.reading_started < now - TRUST_S:
            group.reading_started = now
            group.reading = asyncio.create_task(self._read(resource_group, group, now), name="azmc-group-snapshot")
        await asyncio.shield(group.reading)
        return group.items

    async def _read(self, resource_group: str, group: _Snapshot, started: float) -> None:
        found = [item async for item in self.list_group(resource_group)]
        self.reads += 1
        group.started, group.items = started, found
        if self.clock() - started > SLOW_LIST_S:
            group.own_reads_until = self.clock() + SLOW_GROUP_S


@dataclass
class GroupSnapshots:
    """One per worker process (activities/clients.py)."""

    resources: GroupSnapshot
    vms: GroupSnapshot

    async def listed(self, resource_group: str, machine: str) -> list[Listed] | None:
        """The machine's resources as a recent list of its group shows them; None: list them yourself."""
        found = await self.resources.items(resource_group, machine)
        if found is None:
            return None
        own, prefix = machine.lower(), f"{machine}-".lower()
        mine = [item for item in found if (name := str(item.get("name", "")).lower()) == own or name.startswith(prefix)]
        return own_names([listed(item) for item in mine], machine)

    async def vm(self, resource_group: str, name: str, model: Callable[[dict[str, Any]], Any]) -> tuple[bool, Any]:
        """(known, the VM as `model` makes it from ARM's JSON, or None when the list has no VM of that name);
        known False: read it yourself."""
        found = await self.vms.items(resource_group, name)
        if found is None:
            return False, None
        item = next((vm for vm in found if str(vm.get("name", "")).lower() == name.lower()), None)
        return True, (model(item) if item is not None else None)
