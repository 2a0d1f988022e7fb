"""ARM's list of a resource group's resources, shared by the machines of that group that ask at the same time.

Each machine's own list (machine_resources.py: `$filter=substringof('<machine>', name)`) costs one read. When
machines of one group ask together (a pool coming up or going away: each creation reads what exists, each
deletion verifies that nothing is left), one unfiltered list of the group serves them all, in as many reads as
it has pages. So a group that several machines ask about is listed at most every GAP_S: the machines that asked
meanwhile are listed together, by the whole group's list when that takes fewer reads than theirs one by one (the
pages of the group's last full list tell). A lone machine is listed at once, alone, however often it asks.
Only a list that began after a machine asked answers it: one on its way may predate the write its caller has
just made.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

# A group is listed at most this often while several of its machines keep asking: a lone one waits for nobody.
GAP_S = 1.0
ARM_PAGE = 1000  # resources a page of ARM's list holds


@dataclass(frozen=True)
class Listed:
    id: str
    name: str
    type: str  # lower-case, e.g. microsoft.compute/disks
    tags: dict[str, str] = field(default_factory=dict)


def listed(resource: dict[str, Any]) -> Listed:
    """One item of ARM's list, as JSON (activities/reading/json_lists.py)."""
    return Listed(str(resource["id"]), str(resource["name"]), str(resource["type"]).lower(),
                  dict(resource.get("tags") or {}))


def name_filter(machine: str) -> str:
    """ARM's OData substring match, which every name azmc gives the machine's resources passes."""
    return f"substringof('{machine.replace(chr(39), chr(39) * 2)}', name)"  # OData doubles a quote


def own_names(found: list[Listed], machine: str) -> list[Listed]:
    """The VM <machine> and every resource named "<machine>-...": what a name filter matched that is the machine's."""
    own, prefix = machine.lower(), f"{machine}-".lower()
    return [res for res in found if res.name.lower() == own or res.name.lower().startswith(prefix)]


# (resource group, name filter or None) -> the resources as ARM's JSON items
ListGroup = Callable[[str, str | None], AsyncIterator[dict[str, Any]]]


@dataclass
class _Ask:
    machine: str
    asked: float
    answer: asyncio.Future[list[Listed]]


@dataclass
class _Group:
    asks: list[_Ask] = field(default_factory=list)
    last_list: float = -GAP_S
    askers: dict[str, float] = field(default_factory=dict)  # machine -> when it last asked
    pages: int = 0  # of the group's last full list; 0 before any
    reader: asyncio.Task[None] | None = None


@dataclass
class GroupListings:
    """One per worker process (activities/clients.py)."""

    list_group: ListGroup
    clock: Callable[[], float] = time.monotonic
    _groups: dict[str, _Group] = field(default_factory=dict)
    full_lists: int = 0  # unfiltered lists of a group (each of `pages` reads)
    own_lists: int = 0  # one machine's filtered lists

    async def resources_of(self, resource_group: str, machine: str) -> list[Listed]:
        group = self._groups.setdefault(resource_group.lower(), _Group())
        ask = _Ask(machine, self.clock(), asyncio.get_running_loop().create_future())
        group.askers = {m: at for m, at in group.askers.items() if at > ask.asked - GAP_S}
        group.askers[machine.lower()] = ask.asked
        group.asks.append(ask)
        if group.reader is None or group.reader.done():
            group.reader = asyncio.create_task(self._serve(resource_group, group), name="azmc-group-listing")
        return await ask.answer

    async def _serve(self, resource_group: str, group: _Group) -> None:
        while group.asks:
            crowd = len(group.askers) > 1  # machines asked within the last GAP_S
            wait = group.last_list + GAP_S - self.clock()
            if crowd and wait > 0:
                await asyncio.sleep(wait)
            asks, group.asks = group.asks, []
            group.last_list = self.clock()
            await self._answer(resource_group, group, asks)

    async def _answer(self, resource_group: str, group: _Group, asks: list[_Ask]) -> None:
        # The whole group when its list takes fewer reads than the machines' own (unknown size: try it once).
        together = len(asks) > 1 and (group.pages == 0 or group.pages < len(asks))
        if together:
            await self._settle(asks, self._full(resource_group, group))
            return
        await asyncio.gather(*(self._settle([ask], self._own(resource_group, ask.machine)) for ask in asks))

    async def _full(self, resource_group: str, group: _Group) -> Callable[[str], list[Listed]]:
        found = [listed(resource) async for resource in self.list_group(resource_group, None)]
        self.full_lists += 1
        group.pages = max(1, -(-len(found) // ARM_PAGE))
        return lambda machine: own_names(found, machine)

    async def _own(self, resource_group: str, machine: str) -> Callable[[str], list[Listed]]:
        found = [listed(resource) async for resource in self.list_group(resource_group, name_filter(machine))]
        self.own_lists += 1
        return lambda _: own_names(found, machine)

    @staticmethod
    async def _settle(asks: list[_Ask], work: Awaitable[Callable[[str], list[Listed]]]) -> None:
        try:
            pick = await work
        except Exception as exc:  # each asker's read fails as its own would have
            for ask in asks:
                if not ask.answer.done():
                    ask.answer.set_exception(exc)
            return
        for ask in asks:
            if not ask.answer.done():
                ask.answer.set_result(pick(ask.machine))
