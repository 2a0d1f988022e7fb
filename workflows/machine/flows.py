"""One flow (creation, health check, maintenance, deletion) changes a machine at a time, and a `delete` (or
cancellation) stops the running one at its current await, so deletion starts at once; a `preserve` stops any flow
but preservation itself, so healing stops at once too."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from temporalio import workflow


class Flows:
    def __init__(self, deleting: Callable[[], bool], preserving: Callable[[], bool]) -> None:
        self.busy = asyncio.Lock()
        self._deleting = deleting
        self._preserving = preserving

    async def until_deleted(self, flow: Awaitable[Any], *, preserving: bool = False) -> Any:
        """Run a flow under the lock; None when a `delete` (or a `preserve`, unless `preserving`) stopped it."""
        async def locked() -> Any:
            async with self.busy:
                return await flow

        task = asyncio.ensure_future(locked())
        try:
            await workflow.wait_condition(lambda: task.done() or self._deleting() or (
                not preserving and self._preserving()))
        except asyncio.CancelledError:
            await _stop(task)
            raise
        if task.done():
            return task.result()
        await _stop(task)
        return None


async def _stop(task: "asyncio.Future[Any]") -> None:
    task.cancel()
    # The flow stops where it waits (a backoff timer, an activity, which is then detached: see
    # AzureCalls._call) and has fully unwound before deletion starts.
    await workflow.wait([task])
