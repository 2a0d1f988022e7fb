"""A group's shared list is used only while it is cheaper and quicker than its machines' own reads
(activities/reading/group_snapshots.py): a big group needs a bigger crowd, a slow list sends its group's machines
back to their own reads for a while."""

from collections.abc import AsyncIterator
from typing import Any

from activities.reading.group_listing import ARM_PAGE
from activities.reading.group_snapshots import CROWD, SLOW_GROUP_S, SLOW_LIST_S, GroupSnapshot


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def group_of(size: int, clock: Clock, list_takes_s: float = 0.0) -> tuple[GroupSnapshot, list[int]]:
    lists: list[int] = []

    async def list_group(resource_group: str) -> AsyncIterator[dict[str, Any]]:
        lists.append(size)
        clock.now += list_takes_s
        for index in range(size):
            yield {"name": f"m{index}"}

    return GroupSnapshot(list_group, clock=clock), lists


async def test_a_group_of_many_pages_is_listed_only_for_a_crowd_larger_than_its_pages() -> None:
    clock = Clock()
    snapshot, lists = group_of(5 * ARM_PAGE, clock)
    # The first crowd lists it (its size is unknown until then).
    answers = [await snapshot.items("rg", f"m{i}") for i in range(CROWD)]
    assert answers[:CROWD - 1] == [None] * (CROWD - 1) and answers[-1] is not None and lists == [5 * ARM_PAGE]
    clock.now += 31  # the list is too old to answer
    # Five pages: a crowd of five is answered by its own reads; the sixth asker makes the list worth it.
    assert [await snapshot.items("rg", f"n{i}") for i in range(5)] == [None] * 5
    assert await snapshot.items("rg", "n5") is not None and len(lists) == 2


async def test_a_slow_list_sends_its_groups_machines_to_their_own_reads_for_a_while() -> None:
    clock = Clock()
    snapshot, lists = group_of(10, clock, list_takes_s=SLOW_LIST_S + 1)
    for i in range(CROWD):
        await snapshot.items("rg", f"m{i}")
    assert len(lists) == 1
    clock.now += 31
    assert [await snapshot.items("rg", f"n{i}") for i in range(10)] == [None] * 10 and len(lists) == 1
    clock.now += SLOW_GROUP_S
    for i in range(CROWD):
        last = await snapshot.items("rg", f"p{i}")
    assert last is not None and len(lists) == 2  # tried again once the while is over
