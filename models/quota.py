"""Foreseen quota: a reading of Azure's compute usages and the claims handed out since, checked before a VM PUT.

The `Offerings` memory keeps one reading per subscription+location, taken by one machine's activity when a
claim finds it older than `read_every` (models/offering_claims.ClaimRequest). Until the next reading it counts
every offering it hands out (a QuotaClaim), so machines claiming together do not all get the last vCPUs: a
claim stays counted until a reading taken CLAIM_LANDS after it, which holds its VM (Azure counts a VM at its
PUT, a few seconds after the claim). An offering whose quota cannot hold one more VM is skipped with the
reason (`shortfall`), until the next reading may show room. Azure's own refusal still goes to the memory as a
refusal: when the count and Azure disagree, Azure wins. Pure: safe in the workflow sandbox.
"""

from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from models.offerings import Offering, SkippedOffering
from models.spec import Priority
from models.vm_size_quota import quotas_of, vcpus

QUOTA_FORESEEN = "QuotaForeseen"  # a SkippedOffering's code when the reading says its quota is full
DEFAULT_READ_EVERY = timedelta(minutes=3)  # AZMC_QUOTA_READ_EVERY; Karpenter's Azure provider reads every 10 min
READ_LEASE = timedelta(seconds=30)  # a machine asked to read has this long before another is asked
CLAIM_LANDS = timedelta(minutes=2)  # a claim's VM is in any reading taken this long after the claim
CLAIM_KEPT = timedelta(minutes=10)  # without a reading, a claim is forgotten after this (its machine went on)
SHARES_MAX = 20  # machines a worker may start from one answer about a proven offering (activities/offerings/view.py)


class QuotaUsage(BaseModel):
    """One quota as Azure lists it: `standardDSv5Family` 6 of 8 vCPUs."""

    model_config = ConfigDict(frozen=True)

    name: str
    current: int
    limit: int


class QuotaReading(BaseModel):
    """What usages said at `taken_at` (the memory's time); `error` when they could not be read: nothing foreseen.
    `after_refusal`: taken at once because Azure refused a VM for quota since the reading before."""

    model_config = ConfigDict(frozen=True)

    taken_at: datetime
    usages: list[QuotaUsage] = []
    error: str = ""
    after_refusal: bool = False

    def usage(self, name: str) -> QuotaUsage | None:
        return next((u for u in self.usages if u.name.lower() == name.lower()), None)

    def sees(self, offering: Offering) -> bool:
        """Whether this reading lists every quota the offering counts against (and the size's vCPUs are known): only
        then can it tell whether the offering fits."""
        return vcpus(offering.vm_size) is not None and all(
            self.usage(name) is not None for name in quotas_of(offering.vm_size, offering.priority))


class QuotaClaim(BaseModel):
    """`count` VMs of `vm_size` handed out to `machine` at `at`, not yet in a reading."""

    model_config = ConfigDict(frozen=True)

    machine: str
    vm_size: str
    priority: Priority = Priority.REGULAR
    at: datetime
    count: int = 1

    def vcpus_against(self, quota: str) -> int:
        if quota.lower() not in (q.lower() for q in quotas_of(self.vm_size, self.priority)):
            return 0
        return (vcpus(self.vm_size) or 0) * self.count


def uncounted(claims: list[QuotaClaim], reading: QuotaReading | None, now: datetime) -> list[QuotaClaim]:
    """The claims whose VMs a reading may not hold yet (newer than CLAIM_LANDS before it, and than CLAIM_KEPT)."""
    return [c for c in claims if c.at + CLAIM_KEPT > now
            and (reading is None or c.at + CLAIM_LANDS > reading.taken_at)]


def claimed(offering: Offering, machine: str, now: datetime, count: int = 1) -> QuotaClaim:
    return QuotaClaim(machine=machine, vm_size=offering.vm_size, priority=offering.priority, at=now, count=count)


def _tightest(offering: Offering, machine: str, reading: QuotaReading | None,
              claims: list[QuotaClaim]) -> tuple[int, QuotaUsage, int] | None:
    """The quota of the offering with the least room: (room in vCPUs after the reading and the others' claims,
    the usage read, the vCPUs claimed); None when nothing is known (no reading, an unknown size or quota)."""
    size = vcpus(offering.vm_size)
    if reading is None or size is None:
        return None
    found = None
    for name in quotas_of(offering.vm_size, offering.priority):
        usage = reading.usage(name)
        if usage is None:
            continue
        claims_vcpus = sum(c.vcpus_against(name) for c in claims if c.machine != machine)
        room = usage.limit - usage.current - claims_vcpus
        if found is None or room < found[0]:
            found = (room, usage, claims_vcpus)
    return found


def shortfall(offering: Offering, machine: str, reading: QuotaReading | None, claims: list[QuotaClaim]) -> str:
    """Why the offering's quota cannot hold one more VM for `machine` ("" when it can, or nothing is known):
    "quota standardDSv5Family 8 of 8 vCPUs in use, 2 more needed"."""
    tightest = _tightest(offering, machine, reading, claims)
    needed = vcpus(offering.vm_size) or 0
    if tightest is None or tightest[0] >= needed:
        return ""
    _, usage, claims_vcpus = tightest
    used = usage.current + claims_vcpus
    starting = f" ({claims_vcpus} by machines starting)" if claims_vcpus else ""
    return f"quota {usage.name} {used} of {usage.limit} vCPUs in use{starting}{_NEEDED}{needed} more needed"


_NEEDED = ", "  # between what a shortfall says is in use and what the VM needs


def quota_wait(skipped: list[SkippedOffering]) -> str:
    """One line for a machine every offering of which the quota reading skipped, from the first (the preferred):
    "standardDSv5Family 8 of 8 vCPUs in use (Standard_D2s_v5 needs 2)" ("" when a skip is no foreseen quota)."""
    if not skipped or any(s.code != QUOTA_FORESEEN or not s.reason for s in skipped):
        return ""
    first = skipped[0]
    in_use = first.reason.removeprefix("quota ").rsplit(_NEEDED, 1)[0]
    needs = vcpus(first.offering.vm_size)
    line = f"{in_use} ({first.offering.vm_size} needs {needs})" if needs else in_use
    others = len(skipped) - 1
    return line + (f", and {others} more offering{'s' if others > 1 else ''} over quota" if others else "")


def room_for(offering: Offering, machine: str, reading: QuotaReading | None, claims: list[QuotaClaim]) -> int | None:
    """How many more VMs of the offering its quotas hold, counting the claims (None: not known, no limit seen)."""
    tightest = _tightest(offering, machine, reading, claims)
    needed = vcpus(offering.vm_size)
    if tightest is None or not needed:
        return None
    return max(tightest[0], 0) // needed


def shares(room: int | None) -> int | None:
    """How many machines a worker may start from one answer about a proven offering without asking the memory
    again: None (no limit) when quota is not known; else half the room left, at most SHARES_MAX, so the
    workers together stay within it (the memory counts them as claimed)."""
    return None if room is None else min(room // 2, SHARES_MAX)
