"""The shared status board reads a large list less often (activities/reading/vm_statuses.py): however eager its
waiters (a time-scaled emulator's Retry-After is 0), the reads of a list of N VMs begin at least N x GAP_PER_VM_S
apart, so the list's cost per second stays bounded."""

import asyncio
import time
from collections.abc import AsyncIterator
from itertools import pairwise
from typing import Any

from activities.reading.vm_statuses import GAP_PER_VM_S, MIN_GAP_S, VmStatusBoard, until_created

VM = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm{}"


class Clock:
    """time.monotonic, remembering its last reading: in the lister, that is when the board began the read."""

    last = 0.0

    def __call__(self) -> float:
        self.last = time.monotonic()
        return self.last


async def read_starts(vms: int, waited_s: float) -> list[float]:
    """When each list began, by the board's clock, while one VM is still creating and its waiter asks to be looked at
    constantly (how long the lister took to be called does not count: a loaded machine delays that)."""
    starts: list[float] = []
    clock = Clock()

    async def lister() -> AsyncIterator[dict[str, Any]]:
        starts.append(clock.last)
        for i in range(vms):
            yield {"id": VM.format(i), "properties": {"provisioningState": "Creating"}}

    board = VmStatusBoard(lister, clock=clock)
    waiter = asyncio.create_task(board.wait(VM.format(0), until_created, 0.0))
    await asyncio.sleep(waited_s)
    waiter.cancel()
    await asyncio.gather(waiter, return_exceptions=True)
    return starts


def gaps(starts: list[float]) -> list[float]:
    return [later - earlier for earlier, later in pairwise(starts)]


async def test_a_list_of_400_vms_is_read_at_most_every_200_ms() -> None:
    starts = await read_starts(400, 1.0)
    assert len(starts) >= 2
    assert min(gaps(starts)) >= 0.2 - 1e-9  # 400 x GAP_PER_VM_S


async def test_a_small_list_is_read_at_the_least_gap() -> None:
    starts = await read_starts(5, 0.5)
    assert len(starts) >= 2
    assert min(gaps(starts)) >= MIN_GAP_S - 1e-9
    assert 5 * GAP_PER_VM_S < MIN_GAP_S  # a small fleet's reads are not slowed
