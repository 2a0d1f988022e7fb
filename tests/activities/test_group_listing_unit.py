"""When GroupListings (activities/reading/group_listing.py) lists a group, with a stand-in for ARM's list that
answers when the test lets it: the reads are local activities, so a machine waiting there for company holds one of
the worker's few workflow task slots. A group has one list in flight at most; the machines that asked meanwhile are
answered by the next, begun as soon as that one ends; a machine asking while none is in flight is listed at once.
Under a read pace that spaces a crowd's lists, a local read is turned away at once rather than wait."""

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from activities.reading.group_listing import GroupListings, WouldWaitForCompany, list_gap

GROUP = "rg-fleet"


class HeldList:
    """ARM's resource list of the group: every machine has a VM, and each list answers once the test releases it."""

    def __init__(self, machines: list[str]) -> None:
        self.machines = machines
        self.filters: list[str | None] = []  # one per list begun: a machine's name filter, or None for the group
        self.held = False
        self._release = asyncio.Event()

    async def list_group(self, resource_group: str, name_filter: str | None) -> AsyncIterator[dict[str, Any]]:
        assert resource_group == GROUP
        self.filters.append(name_filter)
        if self.held:
            await self._release.wait()
            self._release = asyncio.Event()
        for machine in self.machines:
            if name_filter is None or f"'{machine}'" in name_filter:
                yield {"id": f"/vm/{machine}", "name": machine, "type": "Microsoft.Compute/virtualMachines"}

    def release(self) -> None:
        self._release.set()


async def ready_work_done() -> None:
    """Let every task that can run, run (no clock involved: nothing here sleeps unless the code under test does)."""
    for _ in range(100):
        await asyncio.sleep(0)


def asking(listings: GroupListings, machine: str) -> "asyncio.Task[list[Any]]":
    return asyncio.create_task(listings.resources_of(GROUP, machine))


async def test_machines_asking_while_a_list_is_in_flight_are_answered_by_the_next_as_soon_as_it_ends() -> None:
    crowd = [f"vm{i:02d}" for i in range(12)]
    arm = HeldList(crowd)
    arm.held = True
    listings = GroupListings(arm.list_group)
    first = asking(listings, crowd[0])
    await ready_work_done()
    others = [asking(listings, machine) for machine in crowd[1:]]
    await ready_work_done()
    # One list in flight for the group; it began before the others asked, so it answers none of them.
    assert len(arm.filters) == 1 and not any(task.done() for task in [first, *others])
    arm.release()
    await ready_work_done()
    assert [res.name for res in first.result()] == [crowd[0]]
    assert not any(task.done() for task in others)
    # The eleven that waited are read at once, together, by one list of the group.
    assert arm.filters[1:] == [None]
    arm.release()
    await ready_work_done()
    assert [[res.name for res in task.result()] for task in others] == [[machine] for machine in crowd[1:]]


async def test_a_machine_asking_right_after_a_crowd_was_answered_is_listed_at_once() -> None:
    crowd = ["vm01", "vm02", "vm03", "vm04"]
    arm = HeldList([*crowd, "late"])
    listings = GroupListings(arm.list_group)
    await asyncio.gather(*(listings.resources_of(GROUP, machine) for machine in crowd))
    late = asking(listings, "late")
    await ready_work_done()
    assert late.done() and [res.name for res in late.result()] == ["late"]
    assert len(arm.filters) <= 3  # the crowd's lists (the first alone, the rest together), then late's own


class Clock:
    """The listings' clock, moved by the test alone."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def under_a_read_pace(arm: HeldList, clock: Clock) -> GroupListings:
    """A worker whose ARM read pace makes a crowd's lists of one page a second apart."""
    return GroupListings(arm.list_group, gap=lambda pages: list_gap(pages, reads_per_s=20), clock=clock)


async def test_under_a_read_pace_a_local_read_in_a_crowd_is_turned_away_at_once_rather_than_wait() -> None:
    arm, clock = HeldList(["vm01", "vm02", "vm03"]), Clock()
    listings = under_a_read_pace(arm, clock)
    assert [res.name for res in await listings.resources_of(GROUP, "vm01", may_wait=False)] == ["vm01"]
    clock.now += 0.1
    # vm02 asks a tenth of a second later: the group's next list waits out the gap, which a local activity must not.
    with pytest.raises(WouldWaitForCompany):
        await listings.resources_of(GROUP, "vm02", may_wait=False)
    # As a regular activity, it waits for the gap and shares the list with the machines that ask meanwhile.
    waiting = [asking(listings, "vm02"), asking(listings, "vm03")]
    await ready_work_done()
    assert len(arm.filters) == 1 and not any(task.done() for task in waiting)
    results = await asyncio.gather(*waiting)
    assert [[res.name for res in found] for found in results] == [["vm02"], ["vm03"]]
    assert arm.filters[1:] == [None]


async def test_under_a_read_pace_a_machine_alone_is_listed_at_once_however_often_it_asks() -> None:
    arm, clock = HeldList(["alone"]), Clock()
    listings = under_a_read_pace(arm, clock)
    for _ in range(3):
        assert [res.name for res in await listings.resources_of(GROUP, "alone", may_wait=False)] == ["alone"]
        clock.now += 0.01
    assert len(arm.filters) == 3
