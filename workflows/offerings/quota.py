"""The memory's side of foreseen quota (models/quota.py): when to ask for a reading, what a claim skips, what it counts.

One machine at a time is asked to read the usages (`read_usages`, for READ_LEASE), when a claim finds the
reading older than the asker's `read_every`; its activity reads them and claims again with the reading.
Until a first reading exists the others wait a moment (`usages_reader`), so no machine claims what nobody
counted; afterwards they claim against the last reading while the next is taken.

Azure's own quota refusal (the quota lowered since the reading, or used outside azmc) makes a reading due at
once, and the machines wait for it as for the first. The reading decides in the refusal's place for the offerings
whose quotas it lists (`standing`) when it was taken after the refusal, or shows them full as well: full, they are
skipped for quota (the machine waits Pending, no failure's backoff); with room, the quota was raised or freed
since, and they are tried. A reading taken at once is never followed by another at once: when Azure refuses again
although it showed room (Azure counts what the usages do not), the refusal stands until the next regular reading,
so Azure and the usages disagreeing costs a refused PUT per offering per `read_every`, never a loop.
"""

from collections.abc import Callable
from datetime import datetime

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.offering_claims import Claim, ClaimRequest
    from models.offerings import Offering, Refusal, SkippedOffering
    from models.offerings_memory import OfferingsMemory, RefusalReport
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
    from models.refusals import is_quota_refusal

SHARED = " (shared)"  # a claim counting the machines a worker may hand a proven offering to


def _refused_since_reading(memory: OfferingsMemory, now: datetime) -> bool:
    """Whether Azure refused a VM for quota since the last reading (a refusal still in force)."""
    reading = memory.usages
    return any(r.until > now and is_quota_refusal(r.code, r.message)
               and (reading is None or r.refused_at > reading.taken_at) for r in memory.refusals)


def _take_reading(memory: OfferingsMemory, request: ClaimRequest, now: datetime) -> None:
    if request.usages is None and not request.usages_error:
        return
    memory.usages = QuotaReading(taken_at=now, usages=request.usages or [], error=request.usages_error,
                                 after_refusal=_refused_since_reading(memory, now))
    memory.usages_asked, memory.usages_reader = None, ""
    memory.quota_claims = uncounted(memory.quota_claims, memory.usages, now)


def before_claim(memory: OfferingsMemory, request: ClaimRequest, now: datetime) -> Claim | None:
    """A reading the request brings is kept; then "read the usages" to an asker who can when one is due (a quota
    refusal since the last regular reading makes one due at once) and nobody else is reading, "wait" while the
    first, or the one a refusal asked for, is taken; None: claim now."""
    _take_reading(memory, request, now)
    reading = memory.usages
    refused = _refused_since_reading(memory, now) and (reading is None or not reading.after_refusal)
    due = reading is None or reading.taken_at + request.read_every <= now or refused
    leased = memory.usages_asked is not None and memory.usages_asked + READ_LEASE > now
    if request.reads_usages and due and (not leased or memory.usages_reader == request.machine):
        memory.usages_asked, memory.usages_reader = now, request.machine
        return Claim(read_usages=True)
    if (reading is None or refused) and leased:
        return Claim(usages_reader=memory.usages_reader)
    return None


def standing(memory: OfferingsMemory, request: ClaimRequest,
             over: Callable[[Offering], SkippedOffering | None]) -> list[Refusal]:
    """The refusals a claim obeys: an Azure quota refusal gives way to the reading for the offerings whose quotas
    it lists, when the reading was taken after it or says they are full too (`over`, over_quota's check, then skips
    them while full, with the reading's reason). A refusal met although the reading shows room stands."""
    reading = memory.usages
    if reading is None or not reading.usages:
        return memory.refusals

    def decided(refusal: Refusal) -> bool:
        after = refusal.refused_at <= reading.taken_at
        return is_quota_refusal(refusal.code, refusal.message) and all(
            reading.sees(o) and (after or over(o) is not None) for o in request.offerings if refusal.matches(o))

    return [r for r in memory.refusals if not decided(r)]


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
            claims.append(claimed(answer.offering, request.machine + SHARED, now, handed))
        answer = answer.model_copy(update={"shares": handed})
    memory.quota_claims = claims
    return answer


def ended(memory: OfferingsMemory, machine: str) -> None:
    """The machine's attempt ended without a VM, or it stopped: its claim holds no quota."""
    memory.quota_claims = [c for c in memory.quota_claims if c.machine != machine]


def refused(memory: OfferingsMemory, report: RefusalReport) -> None:
    """The machine's attempt ended without a VM: its claim holds no quota. After Azure's quota refusal, neither do
    the shares of the size handed out on the same reading: the worker that told it forgets them, and the others'
    next asks meet the refusal (activities/offerings/view.py)."""
    ended(memory, report.machine)
    if is_quota_refusal(report.code, report.message):
        size, priority = report.offering.vm_size.lower(), report.offering.priority
        memory.quota_claims = [c for c in memory.quota_claims if not (
            c.machine.endswith(SHARED) and c.vm_size.lower() == size and c.priority == priority)]
