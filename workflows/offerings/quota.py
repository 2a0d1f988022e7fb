"""The memory's side of foreseen quota (models/quota.py): when to ask for a reading, what a claim skips, what it counts.

One machine at a time is asked to read the usages (`read_usages`, for READ_LEASE), when a claim finds the
reading older than the asker's `read_every`; its activity reads them and claims again with the reading.
Until a first reading exists the others wait a moment (`usages_reader`), so no machine claims what nobody
counted; afterwards they claim against the last reading while the next is taken.
"""

from collections.abc import Callable
from datetime import datetime

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.offering_claims import Claim, ClaimRequest
    from models.offerings import Offering, SkippedOffering
    from models.offerings_memory import OfferingsMemory
    from models.quota import (
        QUOTA_FORESEEN,
        READ_LEASE,
        QuotaReading,
        claimed,
        room_for,
        shares,
        shortfall,
        uncounted,
    )


def _take_reading(memory: OfferingsMemory, request: ClaimRequest, now: datetime) -> None:
    if request.usages is None and not request.usages_error:
        return
    memory.usages = QuotaReading(taken_at=now, usages=request.usages or [], error=request.usages_error)
    memory.usages_asked, memory.usages_reader = None, ""
    memory.quota_claims = uncounted(memory.quota_claims, memory.usages, now)


def before_claim(memory: OfferingsMemory, request: ClaimRequest, now: datetime) -> Claim | None:
    """A reading the request brings is kept; then "read the usages" to an asker who can when one is due and
    nobody else is reading, "wait" while the first is taken, None: claim now."""
    _take_reading(memory, request, now)
    due = memory.usages is None or memory.usages.taken_at + request.read_every <= now
    leased = memory.usages_asked is not None and memory.usages_asked + READ_LEASE > now
    if request.reads_usages and due and (not leased or memory.usages_reader == request.machine):
        memory.usages_asked, memory.usages_reader = now, request.machine
        return Claim(read_usages=True)
    if memory.usages is None and leased:
        return Claim(usages_reader=memory.usages_reader)
    return None


def over_quota(memory: OfferingsMemory, request: ClaimRequest, now: datetime
               ) -> Callable[[Offering], SkippedOffering | None]:
    """The skip of an offering whose quota cannot hold the asker's VM, until the next reading may show room."""
    reading = memory.usages
    if reading is None or not reading.usages:
        return lambda _: None
    claims = uncounted(memory.quota_claims, reading, now)
    until = max(reading.taken_at + request.read_every, now + READ_LEASE)

    def check(offering: Offering) -> SkippedOffering | None:
        why = shortfall(offering, request.machine, reading, claims)
        return SkippedOffering(offering=offering, code=QUOTA_FORESEEN, refused_at=reading.taken_at, until=until,
                               reason=why) if why else None

    return check


def counted(memory: OfferingsMemory, request: ClaimRequest, answer: Claim, now: datetime) -> Claim:
    """The claim counted until a reading holds its VM (the asker's earlier claim replaced); a proven offering's
    answer says how many machines a worker may start from it, and those are counted too."""
    reading = memory.usages
    if answer.offering is None or reading is None or not reading.usages:
        return answer
    claims = [c for c in uncounted(memory.quota_claims, reading, now) if c.machine != request.machine]
    claims.append(claimed(answer.offering, request.machine, now))
    if answer.proven:
        handed = shares(room_for(answer.offering, "", reading, claims))
        if handed:
            claims.append(claimed(answer.offering, f"{request.machine} (shared)", now, handed))
        answer = answer.model_copy(update={"shares": handed})
    memory.quota_claims = claims
    return answer


def ended(memory: OfferingsMemory, machine: str) -> None:
    """The machine's attempt ended without a VM, or it stopped: its claim holds no quota."""
    memory.quota_claims = [c for c in memory.quota_claims if c.machine != machine]
