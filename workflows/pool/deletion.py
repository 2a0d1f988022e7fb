"""A pool's deletion: every machine gets `delete` (preserved ones last), the pool waits until each is gone,
then reads Azure by its tag until nothing of its own is left (leftovers.py) and names the rest."""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.pool import PoolMachine, PoolStatus, RolloutPhase
    from models.pool_io import resources_of
    from models.requests import DeleteRequest

from workflows.azure_calls import error_text
from workflows.continuation import history_is_long
from workflows.pool.book import PoolBook, names_of
from workflows.pool.children import delete_machines
from workflows.pool.leftovers import FIRST_WAIT, LONGEST_WAIT, collect, find_leftovers
from workflows.pool.news import PoolNews
from workflows.pool.state import PoolState
from workflows.pool.view import build_status

# While deleting, machines that sent no word for this long are asked (one may have ended without a word).
POOL_RECHECK = timedelta(minutes=1)


@dataclass
class PoolDeletion:
    """The deletion of one run of the pool, told by the workflow whether a handler woke it (`is_woken`)."""

    state: PoolState
    book: PoolBook
    news: PoolNews | None
    is_woken: Callable[[], bool]
    clear_wake: Callable[[], None]
    show: Callable[[], None]
    continue_as_new: Callable[[], Awaitable[None]]
    _recheck: asyncio.Future[None] | None = field(default=None, init=False)

    async def run(self) -> PoolStatus:
        """Done when every machine's workflow said Deleted (and Azure, read by the pool's tag, agrees)."""
        state, book = self.state, self.book
        request = state.delete_request or DeleteRequest()
        book.operation("delete", f"deleting the pool: {request.reason or 'no reason given'}")
        forwarded = {"reason": f"pool {state.spec.name} deleted: {request.reason}".rstrip(": "),
                     "force": request.force}
        for preserved in (False, True):
            group = [m.name for m in state.machines if m.preserved == preserved]
            for name in group:
                machine = state.machine(name)
                if machine is not None:
                    machine.deleting = True
            self.show()
            await self._send_delete(group, forwarded)
            await self._until_gone(lambda m, p=preserved: m.preserved == p)  # type: ignore[misc]  # mypy cannot type a lambda's default argument
        await self._clear_azure(forwarded)
        book.operation("delete", "every machine is deleted")
        await workflow.wait_condition(workflow.all_handlers_finished)
        status = build_status(state, workflow.now())
        status.phase = RolloutPhase.DELETED
        workflow.set_current_details(f"## pool {state.spec.name} - Deleted")
        return status

    async def _send_delete(self, names: list[str], forwarded: dict[str, Any]) -> None:
        delivered = await delete_machines(self.state.spec.resource_group, [(name, forwarded) for name in names])
        for name, ok in zip(names, delivered, strict=True):
            if not ok:
                self.book.ended(name, "was already gone")

    async def _until_gone(self, which: Callable[[PoolMachine], bool]) -> None:
        """Until no machine `which` takes is left: each said Deleted (confirmed), or its workflow ended."""
        state = self.state
        news = self.news
        assert news is not None  # a pool whose input decoded has its news
        # One timer a POOL_RECHECK (not one per wake), never cancelled: a run ends with it pending, and a cancel
        # would be one more command for nothing.
        while any(which(m) for m in state.machines):
            if self._recheck is None or self._recheck.done():
                self._recheck = asyncio.ensure_future(workflow.sleep(POOL_RECHECK))
            self.show()
            await workflow.wait_condition(lambda timer=self._recheck: self.is_woken() or news.waiting or timer.done()  # type: ignore[misc]  # mypy cannot type a lambda's default argument
                                          or history_is_long(state.history_limit))
            self.clear_wake()
            if self._recheck.done():  # one may have ended without a word
                news.ask_again([m.name for m in state.machines if which(m)])
            if news.waiting:
                await news.confirm()
            if history_is_long(state.history_limit):
                await self.continue_as_new()  # the next run deletes again (idempotent)

    async def _clear_azure(self, forwarded: dict[str, Any]) -> None:
        """Read Azure by the pool's tag until nothing of its own is left (leftovers.py); name the rest."""
        state, book, wait = self.state, self.book, FIRST_WAIT
        while True:
            self.show()
            try:
                found = await find_leftovers(state)
            except ActivityError as err:
                book.log(f"could not read Azure by the pool's tag, again in {humanize(wait)}: {error_text(err)}")
                wait = await _backed_off(wait)
                continue
            lost = [name for name in found.open_machines if state.machine(name) is None]
            if lost:
                book.operation("delete", f"{names_of(lost)}: the pool's own, running without it knowing: deleting")
                state.machines += [PoolMachine(name=name, revision="", deleting=True, since=workflow.now())
                                   for name in lost]
                await self._send_delete(lost, forwarded)
                await self._until_gone(lambda _: True)
            elif found.closed_machines:
                book.operation("delete", "deleting what machines whose workflows ended left in Azure: "
                               + "; ".join(resources_of(m) for m in found.closed_machines[:10]))
                failed = await collect(found.closed_machines)
                if failed:
                    book.operation("delete", f"not deleted yet, again in {humanize(wait)}: {'; '.join(failed[:5])}")
                    wait = await _backed_off(wait)
            else:
                state.azure_checked, state.left_in_azure = True, found.others
                if found.others:
                    book.operation("delete", "tagged with the pool in Azure but not its to delete: "
                                   + "; ".join(found.others[:10]))
                return
            if history_is_long(state.history_limit):
                await self.continue_as_new()  # the next run reads Azure again


async def _backed_off(wait: timedelta) -> timedelta:
    """Wait `wait`; the next wait, doubled up to LONGEST_WAIT."""
    await workflow.sleep(wait)
    return min(wait * 2, LONGEST_WAIT)
