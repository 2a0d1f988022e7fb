"""The memory's side of the sizes' capabilities (models/size_features.py): the resource SKUs of its location are
read at most once a day, by one machine's activity when its claim finds the reading due; every claim's answer
says whether the claimed size supports accelerated networking, and a spec that asks for it skips the sizes
that cannot (never a VM PUT Azure would refuse). While the first reading is taken, machines that may want
accelerated networking wait a moment for it; a reading that failed is "not known" (off) until the next."""

from collections.abc import Callable
from datetime import datetime

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.offering_claims import Claim, ClaimRequest
    from models.offerings import Offering, SkippedOffering
    from models.offerings_memory import OfferingsMemory
    from models.size_features import (
        NO_ACCELERATED_NETWORKING,
        SKUS_READ_EVERY,
        SKUS_READ_LEASE,
        SkuReading,
        accelerated_of,
        skus_due,
        without_accelerated_networking,
    )


def before_claim(memory: OfferingsMemory, request: ClaimRequest, now: datetime) -> Claim | None:
    """A reading the request brings is kept; "read the resource SKUs" to an asker who can when one is due and
    nobody else was asked within the lease; None: claim now."""
    if request.skus is not None or request.skus_error:
        memory.skus = SkuReading(taken_at=now, accelerated=request.skus or {}, error=request.skus_error)
        memory.skus_asked, memory.skus_reader = None, ""
        if request.skus_error:
            workflow.logger.warning(f"[offerings {memory.location}] resource SKUs not read ({request.skus_error})")
        return None
    leased = memory.skus_asked is not None and memory.skus_asked + SKUS_READ_LEASE > now
    if request.reads_skus and skus_due(memory.skus, now) and (not leased or memory.skus_reader == request.machine):
        memory.skus_asked, memory.skus_reader = now, request.machine
        return Claim(read_skus=True)
    if memory.skus is None and leased and request.accelerated_networking is not False:
        # The first reading is being taken (one ARM read, moments): wait for it rather than guess the size.
        return Claim(skus_reader=memory.skus_reader)
    return None


def unsupported(memory: OfferingsMemory, request: ClaimRequest, now: datetime
                ) -> Callable[[Offering], SkippedOffering | None]:
    """The skip of an offering whose size cannot do the accelerated networking the spec asks for."""
    reading = memory.skus
    if request.accelerated_networking is not True or reading is None:
        return lambda _: None
    until = max(reading.taken_at + SKUS_READ_EVERY, now + SKUS_READ_LEASE)

    def check(offering: Offering) -> SkippedOffering | None:
        if accelerated_of(reading, offering.vm_size) is not False:
            return None
        return SkippedOffering(offering=offering, code=NO_ACCELERATED_NETWORKING, refused_at=reading.taken_at,
                               until=until, reason=without_accelerated_networking(offering.vm_size))

    return check


def answered(memory: OfferingsMemory, answer: Claim) -> Claim:
    """The claimed size's accelerated networking, as far as the reading knows."""
    if answer.offering is None:
        return answer
    return answer.model_copy(update={"accelerated_networking": accelerated_of(memory.skus, answer.offering.vm_size)})
