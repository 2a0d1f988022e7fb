"""The worker's view of the shared offerings memory: a burst of machines asking the same costs one update,
a probe stays its asker's alone, what is told to the memory drops the view of it, "worked" is told once a
minute."""

import asyncio

import pytest

from activities.offerings.view import OfferingsView
from models.offering_claims import Claim, ClaimRequest
from models.offerings import Offering
from models.offerings_memory import ProbeRelease, RefusalReport

ZONE_1 = Offering(vm_size="Standard_D2s_v5", zone="1", location="westeurope", subscription="sub")
ZONE_2 = ZONE_1.model_copy(update={"zone": "2"})
MEMORY = "offerings/sub/westeurope"


def request(machine: str, offerings: list[Offering] | None = None) -> ClaimRequest:
    return ClaimRequest(subscription="sub", location="westeurope", offerings=offerings or [ZONE_1, ZONE_2],
                        machine=machine)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Memory:
    """Stands in for the Offerings workflow's answers; counts questions and the most in flight at once."""

    def __init__(self, answer: Claim) -> None:
        self.answer, self.asked, self.in_flight, self.most_in_flight = answer, 0, 0, 0

    async def ask(self) -> Claim:
        self.asked += 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        return self.answer


PROVEN = Claim(offering=ZONE_1, proven=True)
PROBE = Claim(offering=ZONE_1)
WAIT = Claim(probed_by_others=[ZONE_1, ZONE_2])  # another machine probes each offering: wait for its outcome


async def test_a_burst_asking_the_same_costs_one_update_when_the_answer_is_proven() -> None:
    view, memory = OfferingsView(clock=Clock()), Memory(PROVEN)
    claims = await asyncio.gather(*(view.claim(MEMORY, request(f"rg/m{i}"), memory.ask) for i in range(100)))
    assert memory.asked == 1
    assert all(claim.offering == ZONE_1 for claim in claims)


async def test_a_proven_offering_counted_against_quota_goes_to_no_more_machines_than_its_shares() -> None:
    """The memory counted the asker and `shares` more against quota (models/quota.py); the next asks it again."""
    view, memory = OfferingsView(clock=Clock()), Memory(Claim(offering=ZONE_1, proven=True, shares=3))
    claims = await asyncio.gather(*(view.claim(MEMORY, request(f"rg/m{i}"), memory.ask) for i in range(6)))
    assert memory.asked == 2  # the first asker and 3 shares; the fifth asker and one of its 3
    assert all(claim.offering == ZONE_1 for claim in claims)
    view, memory = OfferingsView(clock=Clock()), Memory(Claim(offering=ZONE_1, proven=True, shares=0))
    await asyncio.gather(*(view.claim(MEMORY, request(f"rg/n{i}"), memory.ask) for i in range(3)))
    assert memory.asked == 3  # room for each asker alone: each asks


async def test_waiting_for_another_machines_probe_is_one_answer_for_the_whole_burst() -> None:
    view, memory = OfferingsView(clock=Clock()), Memory(WAIT)
    claims = await asyncio.gather(*(view.claim(MEMORY, request(f"rg/m{i}"), memory.ask) for i in range(1000)))
    assert memory.asked == 1  # 10,000 machines asking in turn timed out before this
    assert all(claim.offering is None and claim.probed_by_others == [ZONE_1, ZONE_2] for claim in claims)


async def test_the_prober_itself_never_hears_the_others_wait_for_its_probe() -> None:
    """Its attempt began again (its worker died) while the others' asks kept "wait for rg/p's probe" fresh."""
    view = OfferingsView(clock=Clock())
    others = Memory(Claim(probed_by_others=[ZONE_1, ZONE_2], probers=["rg/p"]))
    await view.claim(MEMORY, request("rg/other"), others.ask)
    memory = Memory(PROBE)  # the memory: the probe is still rg/p's
    assert (await view.claim(MEMORY, request("rg/p"), memory.ask)).offering == ZONE_1
    assert memory.asked == 1


async def test_the_prober_waiting_on_a_question_in_flight_asks_itself_when_the_answer_is_wait() -> None:
    view, others = OfferingsView(clock=Clock()), Memory(Claim(probed_by_others=[ZONE_1, ZONE_2], probers=["rg/p"]))
    first = asyncio.ensure_future(view.claim(MEMORY, request("rg/other"), others.ask))
    await asyncio.sleep(0)
    memory = Memory(PROBE)
    claim = await view.claim(MEMORY, request("rg/p"), memory.ask)
    await first
    assert (claim.offering, memory.asked) == (ZONE_1, 1)


async def test_every_offering_refused_is_asked_again_each_time() -> None:
    """"Wait until the first refusal ends" is not kept: asked again then, the memory must answer, not the view."""
    view, memory = OfferingsView(clock=Clock()), Memory(Claim())
    await view.claim(MEMORY, request("rg/a"), memory.ask)
    await view.claim(MEMORY, request("rg/a"), memory.ask)
    assert memory.asked == 2


async def test_a_probe_is_its_askers_alone_and_the_others_ask_one_at_a_time() -> None:
    view, memory = OfferingsView(clock=Clock()), Memory(PROBE)
    await asyncio.gather(*(view.claim(MEMORY, request(f"rg/m{i}"), memory.ask) for i in range(10)))
    assert memory.asked == 10  # each machine heard the memory itself: only it can say who probes
    assert memory.most_in_flight == 1  # never a burst of updates at the memory


async def test_a_proven_answer_is_trusted_for_ten_seconds_then_asked_again() -> None:
    clock = Clock()
    view, memory = OfferingsView(clock=clock), Memory(PROVEN)
    await view.claim(MEMORY, request("rg/a"), memory.ask)
    clock.now += 9.9
    await view.claim(MEMORY, request("rg/b"), memory.ask)
    assert memory.asked == 1
    clock.now += 0.2
    await view.claim(MEMORY, request("rg/c"), memory.ask)
    assert memory.asked == 2


async def test_other_questions_and_other_memories_are_asked_themselves() -> None:
    view, memory = OfferingsView(clock=Clock()), Memory(PROVEN)
    await view.claim(MEMORY, request("rg/a"), memory.ask)
    await view.claim(MEMORY, request("rg/b", [ZONE_2, ZONE_1]), memory.ask)  # another order: another answer
    await view.claim("offerings/sub/northeurope", request("rg/c"), memory.ask)
    assert memory.asked == 3


@pytest.mark.parametrize("outcome", [{"code": "ZonalAllocationFailed"}, {}, {"worked": True}],
                         ids=["refused", "failed", "worked"])
async def test_telling_an_outcome_forgets_the_memorys_answers(outcome: dict[str, object]) -> None:
    view, memory = OfferingsView(clock=Clock()), Memory(WAIT)
    await view.claim(MEMORY, request("rg/a"), memory.ask)
    sent: list[RefusalReport] = []
    report = RefusalReport(offering=ZONE_1, machine="rg/a", **outcome)

    async def send() -> None:
        sent.append(report)

    await view.tell(MEMORY, report, send)
    await view.claim(MEMORY, request("rg/b"), memory.ask)
    assert (len(sent), memory.asked) == (1, 2)  # told at once, and the next machine asked the memory again


async def test_worked_is_told_once_a_minute_per_offering() -> None:
    clock = Clock()
    view, sent = OfferingsView(clock=clock), []

    def worked(offering: Offering, machine: str) -> tuple[RefusalReport, object]:
        report = RefusalReport(offering=offering, worked=True, machine=machine)

        async def send() -> None:
            await asyncio.sleep(0.01)
            sent.append(report)

        return report, send

    await asyncio.gather(*(view.tell(MEMORY, *worked(ZONE_1, f"rg/m{i}")) for i in range(50)))
    await view.tell(MEMORY, *worked(ZONE_2, "rg/z2"))
    assert len(sent) == 2  # one per offering
    clock.now += 60
    await view.tell(MEMORY, *worked(ZONE_1, "rg/late"))
    assert len(sent) == 3


async def test_an_untold_success_is_told_by_the_next_one() -> None:
    view = OfferingsView(clock=Clock())
    report = RefusalReport(offering=ZONE_1, worked=True, machine="rg/a")

    async def unreachable() -> None:
        raise ConnectionError("Temporal unavailable")

    with pytest.raises(ConnectionError):
        await view.tell(MEMORY, report, unreachable)
    told: list[bool] = []

    async def send() -> None:
        told.append(True)

    await view.tell(MEMORY, report, send)
    assert told == [True]


async def test_machines_waiting_on_a_failed_question_ask_themselves() -> None:
    view, memory = OfferingsView(clock=Clock()), Memory(PROVEN)

    async def unreachable() -> Claim:
        await asyncio.sleep(0.01)
        raise ConnectionError("Temporal unavailable")

    first = asyncio.ensure_future(view.claim(MEMORY, request("rg/a"), unreachable))
    await asyncio.sleep(0)
    waiting = [view.claim(MEMORY, request(f"rg/m{i}"), memory.ask) for i in range(5)]
    claims = await asyncio.gather(*waiting)
    with pytest.raises(ConnectionError):
        await first
    assert all(claim.offering == ZONE_1 for claim in claims)
    assert memory.asked == 1  # the first waiter asked; its proven answer served the rest


async def test_a_release_is_always_sent_and_stops_this_worker_handing_out_wait_for_it() -> None:
    """A stopped machine's probes end: machines told "wait for its outcome" by this worker's view must hear the
    memory again, not the answer kept for TRUST_S."""
    view, memory = OfferingsView(clock=Clock()), Memory(WAIT)
    await view.claim(MEMORY, request("rg/waiter-1"), memory.ask)
    await view.claim(MEMORY, request("rg/waiter-2"), memory.ask)
    assert memory.asked == 1  # the second waiter heard the kept answer
    sent: list[ProbeRelease] = []
    release = ProbeRelease(subscription="sub", location="westeurope", machine="rg/prober", reason="deleted")

    async def send() -> int:
        sent.append(release)
        return 1

    assert [await view.release(MEMORY, release, send) for _ in range(2)] == [1, 1]  # never skipped
    memory.answer = PROBE
    assert (await view.claim(MEMORY, request("rg/waiter-1"), memory.ask)).offering == ZONE_1
    assert (len(sent), memory.asked) == (2, 2)


async def test_a_wait_answered_while_its_probe_was_released_is_handed_to_no_one_else() -> None:
    """The memory answered "wait for the prober" before it heard the release, which this worker sent meanwhile: kept,
    that answer would keep every machine of the worker waiting for a probe that had ended."""
    view, memory = OfferingsView(clock=Clock()), Memory(WAIT)
    release = ProbeRelease(subscription="sub", location="westeurope", machine="rg/prober", reason="Failed")

    async def send() -> int:
        return 1

    asked_first = asyncio.ensure_future(view.claim(MEMORY, request("rg/waiter-1"), memory.ask))
    await asyncio.sleep(0)  # its question is on its way to the memory
    waiting = asyncio.ensure_future(view.claim(MEMORY, request("rg/waiter-2"), memory.ask))
    await asyncio.sleep(0)
    await view.release(MEMORY, release, send)
    assert (await asked_first).probed_by_others  # the asker's own answer, as the memory gave it
    memory.answer = PROBE
    assert (await waiting).offering == ZONE_1  # waiting on that ask, it asked the memory itself
    assert (await view.claim(MEMORY, request("rg/waiter-3"), memory.ask)).offering == ZONE_1
    assert memory.asked == 3
