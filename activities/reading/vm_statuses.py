"""Shared status reads: the VM operations this worker waits on are answered by one list of the subscription's VMs
with `statusOnly=true` (each VM's provisioning and power state, paged as ARM pages), not by a poll of each
operation.

A waiter says what it waits for (`Watch`) and how often Azure asks it to look (the operation's Retry-After). The
board reads only while somebody waits, at the earliest time a waiter is due and never more often than every
waiter's own pace would, so a thousand machines waiting on their creates cost one read every few seconds instead
of a thousand polls; a lone machine costs what its polls cost. Only a read that began after a waiter registered
answers it: a list already on its way may predate the write it waits on.

The list carries no VM agent, tags or error details: a wait ends on the states alone, and where they cannot tell
how an operation ended (Failed, or idle in a state the operation would not leave) the caller reads that operation
once (activities/lro.py). A principal that may not list the subscription's VMs, or a list that keeps failing,
makes the board step aside: its waiters poll their operations as before.

In a trace (docs/observability.md) each read is a trace of its own (it belongs to no one machine), and each wait a
span of its machine's operation, linked to the read that answered it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from azure.core.exceptions import ClientAuthenticationError, HttpResponseError

from activities import tracing

log = logging.getLogger("azmc.status_reads")

# Provisioning states of a VM some operation is still working on.
BUSY = frozenset({"creating", "updating", "deleting", "migrating"})
# A failed list is tried again after this; this many failures in a row and the board steps aside for a while.
RETRY_AFTER_FAILURE_S = 5.0
FAILURES_BEFORE_STEPPING_ASIDE = 3
STEP_ASIDE_S = 600.0
# Never more often than this, however short the waiters' Retry-After (a time-scaled emulator answers 0), nor than
# GAP_PER_VM_S for each VM the last list held: a list's cost grows with its VMs (ARM's pages, the worker's parsing,
# about 20 us a VM), so however eager its waiters, the board spends a few percent of a core on them at most.
MIN_GAP_S = 0.05
GAP_PER_VM_S = 0.0005
# A waiter's pace grows by this after each read that did not end its wait, up to this many times its Retry-After:
# a lone machine's 45 s create is read at 10, 25 and 47 s rather than every 10 s, and is seen as soon (Azure asks
# for no more than Retry-After; a crowd's reads stay frequent, since some waiter is always due).
GROWTH = 1.5
GROWTH_CAP = 6.0


@dataclass(frozen=True)
class VmStatus:
    provisioning: str  # lower-case provisioningState: "succeeded", "creating", "failed" ...
    power: str  # from the `PowerState/<x>` status, "" when none is reported


class Verdict(Enum):
    WAIT = "wait"  # still working: look again
    DONE = "done"  # the operation reached its goal
    ASK = "ask"  # idle, but not as the operation would leave it (Failed, or another state): read the operation


Watch = Callable[[VmStatus | None], Verdict]  # None: the VM is not listed (absent)


def until_created(status: VmStatus | None) -> Verdict:
    if status is None or status.provisioning in BUSY:
        return Verdict.WAIT  # a VM just accepted may not be listed yet
    return Verdict.DONE if status.provisioning == "succeeded" else Verdict.ASK


def until_updated(status: VmStatus | None) -> Verdict:
    """A PATCH of the VM's model (its data disks' deleteOption): done when it is provisioned again."""
    if status is not None and status.provisioning in BUSY:
        return Verdict.WAIT
    return Verdict.DONE if status is not None and status.provisioning == "succeeded" else Verdict.ASK


def until_deleted(status: VmStatus | None) -> Verdict:
    if status is None:
        return Verdict.DONE
    return Verdict.WAIT if status.provisioning in BUSY else Verdict.ASK


def until_powered(goal: str) -> Watch:
    """A power operation whose VM ends in power state `goal` ("stopped", "deallocated", "running")."""
    def watch(status: VmStatus | None) -> Verdict:
        if status is None:
            return Verdict.ASK
        if status.provisioning in BUSY:
            return Verdict.WAIT
        return Verdict.DONE if status.provisioning == "succeeded" and status.power == goal else Verdict.ASK

    return watch


class SteppedAside(Exception):
    """The board cannot answer (no permission to list, or the list keeps failing): poll the operation instead."""


@dataclass
class _Waiter:
    key: str
    watch: Watch
    registered: float
    hint_s: float  # the operation's Retry-After
    every_s: float
    due: float
    answer: asyncio.Future[tuple[Verdict, VmStatus | None]]
    read: Any = None  # the span of the read that answered, for a link (activities/tracing.py)


Lister = Callable[[], AsyncIterator[dict[str, Any]]]  # VirtualMachines_ListAll(statusOnly=true), VM by VM as JSON


@dataclass
class VmStatusBoard:
    """One per worker process (activities/clients.py): every VM wait of its activities."""

    lister: Lister
    clock: Callable[[], float] = time.monotonic
    _waiters: list[_Waiter] = field(default_factory=list)
    _wake: asyncio.Event | None = None
    _reader: asyncio.Task[None] | None = None
    _next_read: float | None = None  # when the board means to read next, while somebody waits
    _failures: int = 0
    _aside_until: float = 0.0
    _last: tuple[float, dict[str, VmStatus]] = (float("-inf"), {})  # when the last list began, what it said
    reads: int = 0  # lists made (each of one or more pages): what the board cost
    answered: int = 0  # waits it ended

    @property
    def available(self) -> bool:
        return self.clock() >= self._aside_until

    async def wait(self, vm_id: str, watch: Watch, every_s: float) -> tuple[Verdict, VmStatus | None]:
        """Until `watch` says DONE or ASK for VM `vm_id` (its ARM id), looking every `every_s` (the operation's
        Retry-After) from now on. Raises SteppedAside when the board cannot answer."""
        if not self.available:
            raise SteppedAside()
        now = self.clock()
        # A read already planned within this waiter's pace serves it too: one read a pace for the whole fleet.
        due = now + every_s
        if self._next_read is not None and now + MIN_GAP_S <= self._next_read < due:
            due = self._next_read
        waiter = _Waiter(vm_id.lower(), watch, now, every_s, every_s, due, asyncio.get_running_loop().create_future())
        self._waiters.append(waiter)
        self._poke()
        with tracing.span("vm_statuses.wait", {"azmc.wait.every_s": every_s}) as span:
            try:
                verdict, status = await waiter.answer
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
            if span is not None:
                span.set_attribute("azmc.wait.verdict", verdict.value)
                tracing.link(span, waiter.read, {"azmc.link": "answered by this shared status read"})
            return verdict, status

    def seen(self, vm_id: str, within_s: float) -> tuple[bool, VmStatus | None]:
        """(known, the VM's status, None when absent) from the last list if it began at most `within_s` ago."""
        started, statuses = self._last
        if self.clock() - started > within_s:
            return False, None
        return True, statuses.get(vm_id.lower())

    def _gap(self) -> float:
        """The least time between two reads, from the size of the last list."""
        return max(MIN_GAP_S, len(self._last[1]) * GAP_PER_VM_S)

    def _poke(self) -> None:
        if self._wake is None:
            self._wake = asyncio.Event()
        self._wake.set()
        if self._reader is None or self._reader.done():
            self._reader = asyncio.create_task(self._read_while_waited_on(), name="azmc-vm-status-board")

    async def _read_while_waited_on(self) -> None:
        assert self._wake is not None
        try:
            while self.available and (pending := [w for w in self._waiters if not w.answer.done()]):
                now = self.clock()
                # The earliest due waiter sets the time (every waiter a read did not end is due a pace after it).
                at = self._next_read = max(min(w.due for w in pending), self._last[0] + self._gap())
                if at > now:
                    self._wake.clear()
                    try:
                        await asyncio.wait_for(self._wake.wait(), timeout=at - now)
                    except TimeoutError:
                        pass
                    continue  # a new waiter may be due sooner: look again
                await self._read_once(now)
        finally:
            self._next_read = None

    async def _read_once(self, started: float) -> None:
        with tracing.root(tracing.SHARED_READ, {"azmc.waiters": len(self._waiters)}) as span:
            try:
                statuses = await self._list()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # every failure is told to the waiters, or the read is tried again
                self._failed(exc)
                return
            if span is not None:
                span.set_attribute("azmc.vms_listed", len(statuses))
            self._answer(started, statuses, tracing.context_of(span))

    def _answer(self, started: float, statuses: dict[str, VmStatus], read: Any) -> None:
        self._failures = 0
        self.reads += 1
        self._last = (started, statuses)
        for waiter in list(self._waiters):
            if waiter.registered >= started or waiter.answer.done():
                continue  # the list may predate its write
            status = statuses.get(waiter.key)
            verdict = waiter.watch(status)
            if verdict is Verdict.WAIT:
                waiter.every_s = min(waiter.every_s * GROWTH, waiter.hint_s * GROWTH_CAP)
                waiter.due = started + waiter.every_s
                continue
            self.answered += 1
            waiter.read = read
            waiter.answer.set_result((verdict, status))

    async def _list(self) -> dict[str, VmStatus]:
        statuses: dict[str, VmStatus] = {}
        async for vm in self.lister():
            properties = vm.get("properties") or {}
            power = ""
            for status in (properties.get("instanceView") or {}).get("statuses") or []:
                code = str(status.get("code") or "")
                if code.startswith("PowerState/"):
                    power = code.split("/", 1)[1].lower()
            statuses[str(vm.get("id", "")).lower()] = VmStatus(str(properties.get("provisioningState") or "").lower(),
                                                              power)
        return statuses

    def _failed(self, exc: Exception) -> None:
        forbidden = isinstance(exc, ClientAuthenticationError) or (
            isinstance(exc, HttpResponseError) and exc.status_code == 403)
        self._failures += 1
        if forbidden or self._failures >= FAILURES_BEFORE_STEPPING_ASIDE:
            why = "this principal may not list the subscription's VMs" if forbidden else "the list keeps failing"
            log.warning("shared VM status reads step aside for %.0f s (%s: %s): operations are polled one by one",
                        STEP_ASIDE_S, why, exc)
            self._aside_until = self.clock() + STEP_ASIDE_S
            self._failures = 0
            for waiter in list(self._waiters):
                if not waiter.answer.done():
                    waiter.answer.set_exception(SteppedAside())
            return
        log.info("the shared VM status list failed (%s); reading again in %.0f s", exc, RETRY_AFTER_FAILURE_S)
        for waiter in self._waiters:
            waiter.due = self.clock() + RETRY_AFTER_FAILURE_S
