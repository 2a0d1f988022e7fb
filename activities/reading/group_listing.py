"""ARM's list of a resource group's resources, shared by the machines of that group that ask at the same time.

Each machine's own list (machine_resources.py: `$filter=substringof('<machine>', name)`) costs one read. When
machines of one group ask together (a pool coming up or going away: each creation reads what exists, each
deletion verifies that nothing is left), one unfiltered list of the group serves them all, in as many reads as
it has pages, by the whole group's list when that takes fewer reads than theirs one by one (the pages of the
group's last full list tell). A group has one list in flight at most: the machines that ask meanwhile are read
together by the next, begun as soon as it ends. Only a list that began after a machine asked answers it: one on
its way may predate the write its caller has just made.

Sharing saves reads of ARM's budget, and costs waiting: while a group's list would take more than a small share of
the worker's ARM read pace (activities/arm_pace.py), a crowd's lists are at least a `gap` apart (at most MAX_GAP_S),
so more machines share each. A machine that asks alone (nobody else of its group within a gap) is listed at once,
and with the read pace lifted (the gap under a read's own latency) nobody waits for company. The reads are local
activities, and a wait inside one holds one of the worker's few workflow task slots (docs/performance.md): so a
local activity never waits for a gap; it is told `WouldWaitForCompany` at once, and its workflow asks again as a
regular activity, which waits without holding a slot.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

ARM_PAGE = 1000  # resources a page of ARM's list holds
# A crowd's lists of one group take at most this share of the worker's ARM reads, and are never more than MAX_GAP_S
# apart; a gap shorter than READ_LATENCY_S (an ARM list's own time) saves too little to wait for.
LISTS_SHARE = 0.05
MAX_GAP_S = 1.0
READ_LATENCY_S = 0.05


def pages_of(items: int) -> int:
    """The reads an ARM list of `items` resources takes: one a page, one for an empty list."""
    return max(1, -(-items // ARM_PAGE))


def list_gap(pages: int, reads_per_s: float) -> float:
    """Seconds between a crowd's lists of a group of `pages` pages, at this worker's ARM read pace."""
    gap = min(MAX_GAP_S, max(pages, 1) / (reads_per_s * LISTS_SHARE))
    return gap if gap >= READ_LATENCY_S else 0.0


class WouldWaitForCompany(Exception):
    """The ask would wait for its group's next list, which a gap holds back: ask again where waiting is free."""


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
    answer: asyncio.Future[list[Listed]]
    may_wait: bool


@dataclass
class _Group:
    asks: list[_Ask] = field(default_factory=list)  # asked since the list in flight began: the next one's
    last_list: float = float("-inf")  # when the last list began
    askers: dict[str, float] = field(default_factory=dict)  # machine -> when it last asked
    pages: int = 0  # of the group's last full list; 0 before any
    reader: asyncio.Task[None] | None = None  # the list in flight, and those after it while machines ask
    holding: bool = False  # the reader waits out a gap before the next list

    def reading(self) -> bool:
        return self.reader is not None and not self.reader.done()


@dataclass
class GroupListings:
    """One per worker process (activities/clients.py)."""

    list_group: ListGroup
    gap: Callable[[int], float] = lambda pages: 0.0  # a group's pages -> seconds between a crowd's lists
    clock: Callable[[], float] = time.monotonic
    _groups: dict[str, _Group] = field(default_factory=dict)
    full_lists: int = 0  # unfiltered lists of a group (each of `pages` reads)
    own_lists: int = 0  # one machine's filtered lists

    async def resources_of(self, resource_group: str, machine: str, may_wait: bool = True) -> list[Listed]:
        """The machine's resources from a list begun after this call. `may_wait` False (a local activity): raises
        WouldWaitForCompany rather than wait for a crowd's gap."""
        group = self._groups.setdefault(resource_group.lower(), _Group())
        now, gap = self.clock(), self.gap(group.pages)
        group.askers = {m: at for m, at in group.askers.items() if at > now - gap}
        crowd = any(m != machine.lower() for m in group.askers)
        group.askers[machine.lower()] = now
        # The next list would wait out a gap: this one, or one after the list in flight.
        held_back = group.holding or (crowd and (group.reading() or now < group.last_list + gap))
        if not may_wait and gap > 0 and held_back:
            raise WouldWaitForCompany(f"{resource_group}: {len(group.askers)} machines ask within {gap:.2f} s")
        ask = _Ask(machine, asyncio.get_running_loop().create_future(), may_wait)
        group.asks.append(ask)
        if not group.reading():
            group.reader = asyncio.create_task(self._serve(resource_group, group), name="azmc-group-listing")
        return await ask.answer

    async def _serve(self, resource_group: str, group: _Group) -> None:
        while group.asks:  # a list at a time, each begun after its machines asked
            wait = group.last_list + self.gap(group.pages) - self.clock()
            if wait > 0 and len(group.askers) > 1 and all(ask.may_wait for ask in group.asks):
                group.holding = True
                try:
                    await asyncio.sleep(wait)
                finally:
                    group.holding = False
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
        group.pages = pages_of(len(found))
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
