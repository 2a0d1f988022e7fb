"""This worker's short-lived view of the shared memory of offerings, so a burst of machines costs it one update.

Every machine asks the `Offerings` workflow which offering to try and tells it when its VM runs. Asked one
update per machine, a burst of a hundred machines meets Temporal's limit of 10 updates in flight per
workflow, and the memory's history fills and continues as new, aborting the updates in flight: machines
waited for retries, or tried in order without it. Yet nearly all of those answers are the same: "the
offering is proven, try it", or, while one machine probes an offering nobody has proven, "wait for its
outcome". So this worker:
- answers a claim from the last answer to the same question that is everyone's (proven, or wait for
  another machine's probe), heard at most TRUST ago; a probe is its asker's alone, never handed on, and
  "wait for the probe" never reaches the prober (asking again after its worker died, it heard the memory);
  a proven offering goes to at most its answer's `shares` more machines, which the memory counted against
  quota (models/quota.py), then the next machine asks the memory;
- sends one claim at a time per question: machines asking the same while it is in flight wait for it and
  take its answer if it is everyone's, or else ask in turn;
- tells "worked" at most once per REPORT_EVERY per offering: the proof lasts PROVEN_FOR (10 min), so the
  memory hears in time to keep it; a stale probe left by a skipped report is harmless, since a proven
  offering is offered whatever its probes;
- forgets a memory's answers whenever it tells that memory something (an outcome changes them), and sends
  every release of a stopped machine's probes (never skipped: the answers "wait for its probe" it drops are
  exactly what this worker must stop handing out); an answer to an ask sent before that is its asker's alone,
  since the memory gave it before it heard the news (kept, a released probe's "wait" outlived the release by
  TRUST: machines on a time-skipping test server waited out their whole creation timeout for it).
Measured: 10,000 machines started at once, one answer a machine, serialized, timed the asks out.
The cost: what another worker tells the memory reaches this one's machines up to TRUST late.
"""

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from models.offering_claims import Claim, ClaimRequest
from models.offerings import Offering, Refusal
from models.offerings_memory import ProbeRelease, RefusalReport

TRUST_S = 10.0
REPORT_EVERY_S = 60.0

_Key = tuple[str, tuple[tuple[str, str, str], ...]]


def _offering_key(offering: Offering) -> tuple[str, str, str]:
    return offering.vm_size.lower(), offering.zone, str(offering.priority)


def _question(memory_id: str, request: ClaimRequest) -> _Key:
    return memory_id, tuple(_offering_key(o) for o in request.offerings)


def _everyones(answer: Claim) -> bool:
    """The same for every machine asking the same: a proven offering (for as many machines as its `shares`
    allow: the memory counted them against quota), or "wait: others probe what is left". An unproven offering
    offered is a probe, the asker's alone; "all refused until T" is not kept either: the asker waits until T,
    and asked again at T it must hear the memory, not this answer."""
    return (answer.proven and answer.shares != 0) or (answer.offering is None and bool(answer.probed_by_others))


def _for(answer: Claim, machine: str) -> bool:
    """An answer that is everyone's, and not "wait for the probe" to the prober itself: a machine whose attempt
    began again (its worker died) would wait for its own probe, and the others' asks kept that answer fresh."""
    return _everyones(answer) and machine not in answer.probers


@dataclass
class OfferingsView:
    """One per worker (activities/offerings_memory.activities); `clock` in seconds (monotonic)."""

    clock: Callable[[], float] = time.monotonic
    trust_s: float = TRUST_S
    report_every_s: float = REPORT_EVERY_S
    _shared: dict[_Key, tuple[Claim, float]] = field(default_factory=dict)
    _shares_left: dict[_Key, int] = field(default_factory=dict)  # of a shared answer with `shares`
    _asking: dict[_Key, tuple["asyncio.Future[Claim]", int]] = field(default_factory=dict)  # and `_told` then
    _worked_told: dict[tuple[str, tuple[str, str, str]], float] = field(default_factory=dict)
    _told: dict[str, int] = field(default_factory=dict)  # memory -> how many times this worker told it something

    async def claim(self, memory_id: str, request: ClaimRequest, ask: Callable[[], Awaitable[Claim]]) -> Claim:
        key = _question(memory_id, request)
        while True:
            heard = self._shared.get(key)
            if (heard is not None and self.clock() - heard[1] < self.trust_s and _for(heard[0], request.machine)
                    and self._share(key, heard[0])):
                return heard[0]
            asking = self._asking.get(key)
            if asking is None:
                return await self._ask(key, ask)
            in_flight, told = asking
            await asyncio.wait([in_flight])  # never cancels it, nor raises its failure (that is its asker's)
            if (not in_flight.cancelled() and in_flight.exception() is None and self._unchanged(memory_id, told)
                    and _for(in_flight.result(), request.machine) and self._share(key, in_flight.result())):
                return in_flight.result()
            # A probe is its asker's alone (or the ask failed, or news reached the memory meanwhile): ask in
            # turn, one at a time.

    async def _ask(self, key: _Key, ask: Callable[[], Awaitable[Claim]]) -> Claim:
        future: asyncio.Future[Claim] = asyncio.get_running_loop().create_future()
        told = self._told.get(key[0], 0)
        self._asking[key] = (future, told)
        try:
            answer = await ask()
        except BaseException as err:
            if isinstance(err, asyncio.CancelledError):
                future.cancel()
            else:
                future.set_exception(err)
                future.exception()  # retrieved: with no one waiting, it must not be logged as lost
            raise
        finally:
            del self._asking[key]
        future.set_result(answer)
        if _everyones(answer) and self._unchanged(key[0], told):
            self._shared[key] = (answer, self.clock())
            if answer.shares is not None:
                self._shares_left[key] = answer.shares
        else:
            self._shared.pop(key, None)
        return answer

    def _share(self, key: _Key, answer: Claim) -> bool:
        """Hand `answer` (this key's shared one) to one more machine, if its shares allow."""
        if answer.shares is None or answer.offering is None:
            return True
        left = self._shares_left.get(key, 0)
        if self._shared.get(key, (None, 0.0))[0] is not answer or left <= 0:
            return False
        self._shares_left[key] = left - 1
        return True

    async def tell(self, memory_id: str, report: RefusalReport,
                   send: Callable[[], Awaitable[Refusal | None]]) -> Refusal | None:
        told = (memory_id, _offering_key(report.offering))
        if report.worked:
            last = self._worked_told.get(told)
            if last is not None and self.clock() - last < self.report_every_s:
                return None
            self._worked_told[told] = self.clock()  # before sending: concurrent reports of the same stay here
        else:
            self._worked_told.pop(told, None)
        self._forget(memory_id)
        try:
            return await send()
        except BaseException:
            if report.worked:
                self._worked_told.pop(told, None)  # not told: the next success tells it
            raise

    async def release(self, memory_id: str, request: ProbeRelease, send: Callable[[], Awaitable[int]]) -> int:
        """A stopped machine's probes end: always sent, and this worker stops handing out "wait for it"."""
        self._forget(memory_id)
        return await send()

    def _unchanged(self, memory_id: str, told: int) -> bool:
        """Whether this worker has told the memory nothing since `_told` was `told`."""
        return self._told.get(memory_id, 0) == told

    def _forget(self, memory_id: str) -> None:
        self._told[memory_id] = self._told.get(memory_id, 0) + 1
        for key in [k for k in self._shared if k[0] == memory_id]:
            del self._shared[key]
            self._shares_left.pop(key, None)
