"""Claims: an offering nobody has proven is tried by one machine at a time; proven ones by everyone."""

from datetime import UTC, datetime, timedelta

from models.offering_claims import PROBE_FOR, PROVEN_FOR, claim_offering, outcome, probe_poll, released
from models.offerings import Offering, Refusal

NOW = datetime(2026, 1, 1, 12, tzinfo=UTC)
Z1, Z2 = Offering(vm_size="D4", zone="1"), Offering(vm_size="D4", zone="2")


def test_machines_starting_together_probe_different_offerings_then_wait() -> None:
    first, probes = claim_offering([Z1, Z2], "rg/a", [], [], [], NOW)
    second, probes = claim_offering([Z1, Z2], "rg/b", [], probes, [], NOW)
    third, probes = claim_offering([Z1, Z2], "rg/c", [], probes, [], NOW)
    assert (first.offering, second.offering, third.offering) == (Z1, Z2, None)
    assert third.probed_by_others == [Z1, Z2]  # it waits for their outcome instead of risking a refusal
    assert third.probers == ["rg/a", "rg/b"]  # so a worker's view never tells a prober to wait for itself
    again, _ = claim_offering([Z1, Z2], "rg/a", [], probes, [], NOW)
    assert again.offering == Z1  # a machine's own probe is its to retry
    assert all(p.until == NOW + PROBE_FOR for p in probes)


def test_an_offering_that_worked_is_for_everyone_and_a_refused_one_for_nobody() -> None:
    _, probes = claim_offering([Z1, Z2], "rg/a", [], [], [], NOW)
    _, probes = claim_offering([Z1, Z2], "rg/b", [], probes, [], NOW)
    probes, proven = outcome(Z2, "rg/b", True, probes, [], NOW)
    refused = [Refusal(vm_size="D4", zone="1", priority="*", code="ZonalAllocationFailed", refused_at=NOW,
                       until=NOW + timedelta(hours=1))]
    probes, proven = outcome(Z1, "rg/a", False, probes, proven, NOW)
    assert probes == []
    for machine in ("rg/c", "rg/d"):
        answer, probes = claim_offering([Z1, Z2], machine, refused, probes, proven, NOW)
        assert answer.offering == Z2 and [s.offering for s in answer.availability.skipped] == [Z1]
        assert answer.proven  # the worker may hand this answer to machines asking the same
    assert probes == []  # proven: no probe needed
    later, _ = claim_offering([Z2], "rg/e", [], [], proven, NOW + PROVEN_FOR + timedelta(seconds=1))
    assert later.offering == Z2 and not later.proven  # no longer proven, but nobody probes it: claimed


def test_a_probe_of_a_vanished_machine_ends_by_itself() -> None:
    _, probes = claim_offering([Z1], "rg/a", [], [], [], NOW)
    blocked, _ = claim_offering([Z1], "rg/b", [], probes, [], NOW + PROBE_FOR - timedelta(seconds=1))
    free, _ = claim_offering([Z1], "rg/b", [], probes, [], NOW + PROBE_FOR)
    assert blocked.offering is None and free.offering == Z1


def test_a_machine_waiting_for_others_probes_asks_less_and_less_often() -> None:
    assert [probe_poll(n).total_seconds() for n in range(1, 7)] == [5, 10, 10, 10, 10, 10]


def test_a_machine_that_stops_releases_its_probes_and_the_others_may_claim_them() -> None:
    _, probes = claim_offering([Z1], "rg/a", [], [], [], NOW)
    _, probes = claim_offering([Z2], "rg/b", [], probes, [], NOW)
    probes, count = released("rg/a", probes, NOW + timedelta(seconds=5))
    assert count == 1 and [p.machine for p in probes] == ["rg/b"]
    assert released("rg/a", probes, NOW)[1] == 0  # nothing left of it
    assert released("rg/b", probes, NOW + PROBE_FOR)[1] == 0  # an ended probe is not counted
    free, _ = claim_offering([Z1], "rg/c", [], probes, [], NOW + timedelta(seconds=5))
    assert free.offering == Z1  # without waiting PROBE_FOR for the stopped machine


def test_an_offering_that_worked_ends_every_probe_of_it() -> None:
    """A proven offering is offered whatever its probes, and a prober's own "worked" may never be sent (a
    worker tells it once a minute per offering): its probe must not be shown as in flight."""
    _, probes = claim_offering([Z1], "rg/a", [], [], [], NOW)
    probes.append(probes[0].model_copy(update={"machine": "rg/b"}))  # claimed through another worker's stale view
    _, probes = claim_offering([Z2], "rg/c", [], probes, [], NOW)
    probes, proven = outcome(Z1, "rg/a", True, probes, [], NOW)
    assert [p.machine for p in probes] == ["rg/c"] and [p.offering for p in proven] == [Z1]
    assert probes[0].began() == NOW and probes[0].until == NOW + PROBE_FOR
