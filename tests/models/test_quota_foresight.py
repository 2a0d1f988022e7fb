"""Foreseen quota (models/quota.py, workflows/offerings/quota.py): what a size counts against, what the memory
skips and why, the claims it counts until a reading holds their VMs, and when it asks for a reading."""

from datetime import UTC, datetime, timedelta

import pytest

from models.offering_claims import ClaimRequest, Proven, claim_offering, outcome
from models.offerings import Offering, SkippedOffering
from models.offerings_memory import OfferingsMemory, RefusalReport
from models.quota import (
    CLAIM_KEPT,
    CLAIM_LANDS,
    QUOTA_FORESEEN,
    READ_LEASE,
    QuotaReading,
    QuotaUsage,
    quota_wait,
    shortfall,
    uncounted,
)
from models.refusals import refusal_of
from models.spec import Priority
from models.vm_size_quota import family, quotas_of, vcpus
from workflows.offerings import quota

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
D2 = Offering(vm_size="Standard_D2s_v5", location="westeurope", subscription="sub")
FAMILY = "standardDSv5Family"


@pytest.mark.parametrize(("size", "cores", "named"), [
    ("Standard_D4s_v5", 4, "standardDSv5Family"), ("Standard_D2as_v5", 2, "standardDASv5Family"),
    ("Standard_B2s", 2, "standardBSFamily"), ("Standard_E4-2s_v5", 4, "standardESv5Family"),
    ("Standard_DS3_v2", 3, "standardDSv2Family"), ("Basic_A0", None, None),
])
def test_a_size_name_says_its_vcpus_and_quota_family(size: str, cores: int | None, named: str | None) -> None:
    assert (vcpus(size), family(size)) == (cores, named)


def test_spot_counts_against_low_priority_cores_only() -> None:
    assert quotas_of("Standard_D2s_v5", Priority.SPOT) == ["lowPriorityCores"]
    assert quotas_of("Standard_D2s_v5", Priority.REGULAR) == [FAMILY, "cores"]
    assert quotas_of("Odd", Priority.REGULAR) == ["cores"]


def reading(used: int, limit: int, at: datetime = NOW, cores: int = 100) -> QuotaReading:
    return QuotaReading(taken_at=at, usages=[QuotaUsage(name="cores", current=used, limit=cores),
                                             QuotaUsage(name=FAMILY, current=used, limit=limit)])


def ask(memory: OfferingsMemory, machine: str, now: datetime = NOW, **extra: object):
    """One claim as the Offerings workflow answers it."""
    request = ClaimRequest(subscription="sub", location="westeurope", offerings=[D2], machine=machine,
                           reads_usages=True, **extra)
    first = quota.before_claim(memory, request, now)
    if first is not None:
        return first
    over = quota.over_quota(memory, request, now)
    answer, memory.probes = claim_offering(request.offerings, machine, quota.standing(memory, request, over),
                                           memory.probes, memory.proven, now, over)
    return quota.counted(memory, request, answer, now)


# Compute's answer to a VM PUT over the family's quota.
OVER_QUOTA = ("Operation could not be completed as it results in exceeding approved Standard DSv5 Family Cores "
              "quota. Additional details - Current Limit: 8, Current Usage: 8, Additional Required: 2")


def refuse(memory: OfferingsMemory, machine: str, at: datetime) -> None:
    """Azure refused `machine`'s VM PUT for quota, told to the memory as the `refused` update does."""
    report = RefusalReport(offering=D2, code="OperationNotAllowed", message=OVER_QUOTA, machine=machine)
    refusal = refusal_of(D2, report.code, report.message, at, machine)
    assert refusal is not None
    memory.refusals = [*(r for r in memory.refusals if r.key != refusal.key), refusal]
    memory.probes, memory.proven = outcome(D2, machine, False, memory.probes, memory.proven, at)
    quota.refused(memory, report)


def test_machines_claiming_together_do_not_all_get_the_last_vcpus() -> None:
    memory = OfferingsMemory(subscription="sub", location="westeurope", usages=reading(2, 8),
                             proven=[Proven(offering=D2, until=NOW + timedelta(minutes=10))])
    answers = [ask(memory, f"rg/m{n}") for n in range(10)]
    # 6 vCPUs of room: the first machine and the one its worker may share the answer with, then the third.
    assert [a.offering is not None for a in answers] == [True, True] + [False] * 8
    assert (answers[0].shares, answers[1].shares) == (1, 0)
    skipped = answers[2].availability.skipped[0]
    assert skipped.code == "QuotaForeseen" and skipped.until == NOW + timedelta(minutes=3)
    assert skipped.reason == f"quota {FAMILY} 8 of 8 vCPUs in use (6 by machines starting), 2 more needed"
    # A reading taken once their VMs landed counts them itself: the claims are dropped, the quota is still full.
    later = NOW + CLAIM_LANDS
    assert ask(memory, "rg/m2", later, usages=reading(8, 8, cores=100).usages).offering is None
    assert memory.quota_claims == []
    full = f"quota {FAMILY} 8 of 8 vCPUs in use, 2 more needed"
    assert ask(memory, "rg/m2", later).availability.skipped[0].reason == full


def test_a_machines_own_claim_is_not_counted_against_it_and_ends_with_its_attempt() -> None:
    memory = OfferingsMemory(subscription="sub", location="westeurope", usages=reading(6, 8))
    assert ask(memory, "rg/a").offering == D2  # a probe: the last 2 vCPUs are rg/a's
    assert ask(memory, "rg/a").offering == D2  # asked again (its attempt began again): still its own
    assert ask(memory, "rg/b").offering is None
    quota.ended(memory, "rg/a")  # refused or released: no VM holds the quota
    memory.probes = []
    assert ask(memory, "rg/b").offering == D2


def test_one_machine_reads_the_usages_and_the_others_wait_only_for_the_first_reading() -> None:
    memory = OfferingsMemory(subscription="sub", location="westeurope")
    assert ask(memory, "rg/a").read_usages
    assert ask(memory, "rg/b").usages_reader == "rg/a"  # no reading yet: nobody claims what nobody counted
    assert ask(memory, "rg/a", usages=reading(0, 8).usages).offering == D2
    due = NOW + timedelta(minutes=3)
    assert ask(memory, "rg/b", due).read_usages  # the reading is due: the next asker reads
    assert ask(memory, "rg/c", due).offering is None  # the others claim on the last reading meanwhile...
    assert ask(memory, "rg/c", due).probed_by_others == [D2]  # ...here: wait for rg/a's probe
    assert ask(memory, "rg/c", due + READ_LEASE).read_usages  # rg/b never answered: another reads


def test_usages_that_could_not_be_read_foresee_nothing_until_the_next_reading() -> None:
    memory = OfferingsMemory(subscription="sub", location="westeurope")
    assert ask(memory, "rg/a").read_usages
    assert ask(memory, "rg/a", usages_error="AuthorizationFailed").offering == D2
    assert memory.usages is not None and memory.usages.error == "AuthorizationFailed" and memory.quota_claims == []


def test_a_claim_is_counted_until_a_reading_taken_once_its_vm_landed_or_for_claim_kept() -> None:
    claim = quota.claimed(D2, "rg/a", NOW)
    assert uncounted([claim], reading(0, 8, at=NOW + CLAIM_LANDS - timedelta(seconds=1)), NOW) == [claim]
    assert uncounted([claim], reading(0, 8, at=NOW + CLAIM_LANDS), NOW) == []
    assert uncounted([claim], None, NOW + CLAIM_KEPT) == []
    assert shortfall(D2, "rg/b", reading(6, 8), [claim]).startswith(f"quota {FAMILY} 8 of 8")
    assert shortfall(D2, "rg/a", reading(6, 8), [claim]) == ""
    spot = D2.model_copy(update={"priority": Priority.SPOT})
    assert shortfall(spot, "rg/b", reading(6, 8), [claim]) == ""  # no lowPriorityCores listed: not foreseen


def test_a_machine_every_offering_of_which_is_over_quota_says_why_in_one_line() -> None:
    def skip(offering: Offering, code: str = QUOTA_FORESEEN) -> SkippedOffering:
        why = shortfall(offering, "rg/vm", reading(8, 8), []) if code == QUOTA_FORESEEN else ""
        return SkippedOffering(offering=offering, code=code, refused_at=NOW, until=NOW, reason=why)

    zone_2 = D2.model_copy(update={"zone": "2"})
    assert quota_wait([skip(D2)]) == f"{FAMILY} 8 of 8 vCPUs in use (Standard_D2s_v5 needs 2)"
    assert quota_wait([skip(D2), skip(zone_2)]) == \
        f"{FAMILY} 8 of 8 vCPUs in use (Standard_D2s_v5 needs 2), and 1 more offering over quota"
    assert quota_wait([skip(D2), skip(zone_2, "ZonalAllocationFailed")]) == ""  # Azure refused one: no quota wait
    assert quota_wait([]) == ""


def test_azures_quota_refusal_asks_for_a_reading_at_once_which_decides_in_its_place() -> None:
    memory = OfferingsMemory(subscription="sub", location="westeurope", usages=reading(0, 8),
                             proven=[Proven(offering=D2, until=NOW + timedelta(minutes=10))])
    assert ask(memory, "rg/a").shares == 1  # room for 4: rg/a, and half of the rest from its worker
    refuse(memory, "rg/a", NOW + timedelta(seconds=5))  # the quota was lowered meanwhile
    assert memory.quota_claims == []  # neither rg/a's claim nor the shares handed out on that reading hold quota
    then = NOW + timedelta(seconds=10)
    assert ask(memory, "rg/a", then).read_usages  # at once, not at the next regular reading
    assert ask(memory, "rg/b", then).usages_reader == "rg/a"  # another refused meanwhile waits for it
    full = ask(memory, "rg/a", then, usages=reading(8, 8).usages)
    (skipped,) = full.availability.skipped
    assert (skipped.code, skipped.reason) == (QUOTA_FORESEEN, f"quota {FAMILY} 8 of 8 vCPUs in use, 2 more needed")
    refuse(memory, "rg/b", then + timedelta(seconds=1))  # refused after the reading, which says full as well
    assert ask(memory, "rg/b", then + timedelta(seconds=2)).availability.skipped[0].code == QUOTA_FORESEEN
    # Raised: the next regular reading shows room, and the refusals, older, give way to it.
    due = then + timedelta(minutes=3)
    assert ask(memory, "rg/a", due).read_usages
    assert ask(memory, "rg/a", due, usages=reading(8, 12).usages).offering == D2


def test_a_quota_refusal_the_reading_cannot_explain_stands_and_asks_for_no_reading_after_the_first() -> None:
    memory = OfferingsMemory(subscription="sub", location="westeurope", usages=reading(0, 8))
    assert ask(memory, "rg/a").offering == D2
    refuse(memory, "rg/a", NOW + timedelta(seconds=5))
    then = NOW + timedelta(seconds=10)
    assert ask(memory, "rg/a", then).read_usages
    # The usages show room: Azure counts what they do not (or the quota was raised): tried once more...
    assert ask(memory, "rg/a", then, usages=reading(0, 8).usages).offering == D2
    refuse(memory, "rg/a", then + timedelta(seconds=5))
    # ...and refused again: the refusal stands, no reading is taken at once, no PUT is tried, until the next
    # regular reading.
    again = ask(memory, "rg/a", then + timedelta(seconds=10))
    assert again.offering is None and not again.read_usages
    assert again.availability.skipped[0].code == "OperationNotAllowed"
    assert ask(memory, "rg/a", then + timedelta(minutes=3)).read_usages
