"""Claims: one machine at a time tries an offering nobody has proven, so a dry zone costs one failed VM PUT.

Machines that start together would all try the first offering before any refusal is known. So a machine
claims its offering from the memory: an offering that worked recently (proven) is free for all; an
unproven one is claimed (a probe) by the first machine that asks, and the others take the next offering,
or wait a moment for the probe's outcome when every available offering is being probed. The outcome (it
worked, Azure refused it, or the attempt failed otherwise) ends the probe; a machine that stops (deleted,
Failed, continued as new) releases its probes; a probe of a machine that vanished without a word (its
workflow terminated) ends by itself. Pure: the `Offerings` workflow holds the state.
"""

from collections.abc import Callable
from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from models.naming import workflow_id
from models.offerings import Availability, Offering, Refusal, SkippedOffering, availability
from models.quota import DEFAULT_READ_EVERY, QuotaUsage

PROBE_FOR = timedelta(minutes=10)  # a VM create takes minutes; longer, and its machine is gone
PROVEN_FOR = timedelta(minutes=10)  # capacity that just worked is worth trying by everyone at once
PROBE_POLL = timedelta(seconds=5)  # a machine waiting for others' probes asks again after this...
PROBE_POLL_MAX = timedelta(seconds=10)  # ...then this: a burst of thousands polls at half the rate, and a
# failed probe is followed by the next within 10 s


def probe_poll(waits: int) -> timedelta:
    """The wait before asking again, after `waits` answers in a row said another machine probes."""
    doubled: int = 2 ** min(max(waits - 1, 0), 8)
    return min(PROBE_POLL * doubled, PROBE_POLL_MAX)


def same(a: Offering, b: Offering) -> bool:
    return (a.vm_size.lower(), a.zone, a.priority) == (b.vm_size.lower(), b.zone, b.priority)


class Probe(BaseModel):
    offering: Offering
    machine: str  # resource_group/name
    until: datetime
    since: datetime | None = None  # None in memories carried from before it was kept

    def began(self) -> datetime:
        return self.since or self.until - PROBE_FOR

    def holder(self) -> str:
        """The prober's workflow id (`machine/<rg>/<name>`), what an operator looks it up by."""
        resource_group, _, name = self.machine.partition("/")
        return workflow_id(resource_group, name) if name else self.machine


class Proven(BaseModel):
    offering: Offering
    until: datetime


class ClaimRequest(BaseModel):
    """A machine's question. The asking activity adds what its worker knows of quota (models/quota.py): that it
    reads usages when asked, how often a reading is due (AZMC_QUOTA_READ_EVERY), and a reading it just took."""

    model_config = ConfigDict(frozen=True)

    subscription: str
    location: str
    offerings: list[Offering]
    machine: str  # resource_group/name
    reads_usages: bool = False
    read_every: timedelta = DEFAULT_READ_EVERY
    usages: list[QuotaUsage] | None = None
    usages_error: str = ""  # why the usages asked for could not be read
    # Sizes' capabilities (models/size_features.py): the asking activity reads the resource SKUs when asked; a
    # reading it just took (size -> AcceleratedNetworkingEnabled), or why it failed.
    reads_skus: bool = False
    skus: dict[str, bool] | None = None
    skus_error: str = ""
    # The spec's accelerated_networking: true skips the sizes the reading says cannot do it.
    accelerated_networking: bool | None = None


class Claim(BaseModel):
    """The offering to try now (None: none), what is skipped, and what others are probing. `proven`: the
    offering worked recently, so the memory took no probe and any machine asking the same may try it.
    `probers`: the machines probing `probed_by_others`; a worker's view never hands "wait for their outcome"
    to one of them (it would wait for its own probe until the probe expires)."""

    offering: Offering | None = None
    proven: bool = False
    availability: Availability = Availability()
    probed_by_others: list[Offering] = []
    probers: list[str] = []
    # Quota (models/quota.py): read the usages and ask again with them; or wait: this machine reads them.
    read_usages: bool = False
    usages_reader: str = ""
    # A proven offering: how many machines a worker may hand this answer to (None: no limit, quota not known).
    shares: int | None = None
    # Read the resource SKUs and ask again with them; the claimed offering's size supports accelerated
    # networking (None: not known).
    read_skus: bool = False
    skus_reader: str = ""  # wait: this machine reads the first resource SKUs of the location
    accelerated_networking: bool | None = None


def claim_offering(offerings: list[Offering], machine: str, refusals: list[Refusal], probes: list[Probe],
                   proven: list[Proven], now: datetime,
                   over_quota: Callable[[Offering], SkippedOffering | None] = lambda _: None,
                   ) -> tuple[Claim, list[Probe]]:
    """The first offering not refused nor `over_quota` that is proven, unprobed or probed by `machine` itself;
    the probes after the claim (a claimed unproven offering becomes `machine`'s probe)."""
    answer = availability(offerings, refusals, now)
    foreseen = [(offering, over_quota(offering)) for offering in answer.available]
    answer.available = [offering for offering, skip in foreseen if skip is None]
    answer.skipped += [skip for _, skip in foreseen if skip is not None]
    probes = [p for p in probes if p.until > now]
    others: list[Offering] = []
    probers: list[str] = []
    for offering in answer.available:
        if any(same(p.offering, offering) for p in proven if p.until > now):
            return Claim(offering=offering, proven=True, availability=answer), probes
        holder = next((p for p in probes if same(p.offering, offering)), None)
        if holder is None or holder.machine == machine:
            kept = [p for p in probes if not same(p.offering, offering)]
            return (Claim(offering=offering, availability=answer),
                    [*kept, Probe(offering=offering, machine=machine, until=now + PROBE_FOR, since=now)])
        others.append(offering)
        probers.append(holder.machine)
    return Claim(availability=answer, probed_by_others=others, probers=sorted(set(probers))), probes


def outcome(offering: Offering, machine: str, worked: bool, probes: list[Probe], proven: list[Proven],
            now: datetime) -> tuple[list[Probe], list[Proven]]:
    """An attempt ended: its probe ends; an offering that worked is proven for PROVEN_FOR, and every probe of
    it ends too (a proven offering is offered whatever its probes, and a prober's "worked" may never come:
    a worker tells it once a minute per offering)."""
    probes = [p for p in probes if p.until > now and not (same(p.offering, offering) and (
        worked or p.machine == machine))]
    proven = [p for p in proven if p.until > now and not same(p.offering, offering)]
    if worked:
        proven.append(Proven(offering=offering, until=now + PROVEN_FOR))
    return probes, proven


def released(machine: str, probes: list[Probe], now: datetime) -> tuple[list[Probe], int]:
    """`machine` stopped (deleted, Failed, continued as new): its probes end, so machines waiting for their
    outcome try the offerings at once; the probes left, and how many of the machine's were in force."""
    current = [p for p in probes if p.until > now]
    kept = [p for p in current if p.machine != machine]
    return kept, len(current) - len(kept)
