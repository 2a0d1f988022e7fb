"""Offerings: a size in a zone at a priority, in a location and subscription - what Azure can refuse for capacity.

A machine's acceptable offerings (`offerings_of`) are tried in order; the shared memory (the `Offerings`
workflow, workflows/offerings/workflow.py) holds `Refusal`s, each marking offerings unavailable until it expires
(how long and how wide: models/refusals.py). Pure: safe in the workflow sandbox.
"""

from datetime import datetime, timedelta

from pydantic import BaseModel, ConfigDict

from models.durations import humanize
from models.spec import MachineSpec, Priority

ANY = "*"  # a Refusal's vm_size, zone or priority that matches every value
_MAX_MESSAGE_CHARS = 300  # Azure's messages are long; the memory shows the start of one


class Offering(BaseModel):
    model_config = ConfigDict(frozen=True)

    vm_size: str
    zone: str = ""  # "" = regional
    priority: Priority = Priority.REGULAR
    location: str = ""
    subscription: str = ""

    def describe(self) -> str:
        """"Standard_D4s_v5 in zone 2" ("..., regional"; " (Spot)" for Spot): how status and the UI name it."""
        where = f"in zone {self.zone}" if self.zone else "regional"
        spot = " (Spot)" if self.priority == Priority.SPOT else ""
        return f"{self.vm_size} {where}{spot}"


def offerings_of(spec: MachineSpec) -> list[Offering]:
    """Every offering the spec accepts, in the order they are tried: priority, then size, then zone.

    Size before zone: the first size is the one the operator prefers, and the same size in another zone
    is the closest substitute. Spot first; the regular offerings follow only with `fallback_to_regular`,
    so a Spot machine never becomes a more expensive VM without being told it may.
    """
    priorities = [spec.priority]
    if spec.priority == Priority.SPOT and spec.spot is not None and spec.spot.fallback_to_regular:
        priorities.append(Priority.REGULAR)
    return [Offering(vm_size=size, zone=zone, priority=priority, location=spec.location,
                     subscription=spec.subscription)
            for priority in priorities for size in spec.vm_sizes for zone in spec.zones]


def narrowed(spec: MachineSpec, offering: Offering) -> MachineSpec:
    """The spec of exactly this offering: what one creation attempt asks Azure for (activities/vm_body.py)."""
    update: dict[str, object] = {"vm_sizes": [offering.vm_size], "zones": [offering.zone],
                                 "priority": offering.priority}
    if offering.priority == Priority.REGULAR:
        update["spot"] = None
    return spec.model_copy(update=update)


def offering_in_use(spec: MachineSpec) -> Offering:
    """The offering a narrowed spec (or a spec of one size and zone) stands for."""
    return offerings_of(spec)[0]


class Refusal(BaseModel):
    """Azure refused an offering: until `until`, every offering it matches is skipped without asking Azure.

    `vm_size`, `zone` and `priority` may be ANY: AllocationFailed marks a size in every zone, a regional
    quota every size (models/refusals.py decides how wide)."""

    model_config = ConfigDict(frozen=True)

    vm_size: str
    zone: str
    priority: str
    code: str
    message: str = ""
    refused_at: datetime
    until: datetime
    machine: str = ""  # who was refused (resource_group/name), for the operator

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.vm_size.lower(), self.zone, self.priority)

    def matches(self, offering: Offering) -> bool:
        return ((self.vm_size == ANY or self.vm_size.lower() == offering.vm_size.lower())
                and self.zone in (ANY, offering.zone) and self.priority in (ANY, offering.priority))

    def scope(self) -> str:
        """"Standard_D4s_v5 in zone 2", "Standard_D4s_v5 in every zone (Spot)", "every size (Regular)"."""
        size = "every size" if self.vm_size == ANY else self.vm_size
        where = "" if self.zone == ANY else (f" in zone {self.zone}" if self.zone else " regional")
        if self.vm_size != ANY and self.zone == ANY:
            where = " in every zone"
        priority = "" if self.priority == ANY else f" ({self.priority})"
        return f"{size}{where}{priority}"


def shorten(message: str) -> str:
    return message if len(message) <= _MAX_MESSAGE_CHARS else message[:_MAX_MESSAGE_CHARS - 3] + "..."


class SkippedOffering(BaseModel):
    """An offering an attempt did not try, and the refusal that made it skip it (or, with a `reason`, the quota
    reading that foresaw a refusal: models/quota.py)."""

    offering: Offering
    code: str
    refused_at: datetime
    until: datetime
    reason: str = ""

    def describe(self, now: datetime) -> str:
        """"Standard_D4s_v5 in zone 2: ZonalAllocationFailed 12 min ago, retry after 48 min"; foreseen:
        "Standard_D4s_v5 regional: quota standardDSv5Family 8 of 8 vCPUs in use, 2 more needed, retry after 3 min"."""
        after = humanize(max(self.until - now, timedelta(0)))
        if self.reason:
            return f"{self.offering.describe()}: {self.reason}, retry after {after}"
        ago = humanize(max(now - self.refused_at, timedelta(0)))
        return f"{self.offering.describe()}: {self.code} {ago} ago, retry after {after}"


class Availability(BaseModel):
    """The memory's answer for a list of offerings (asked order kept)."""

    available: list[Offering] = []
    skipped: list[SkippedOffering] = []

    @property
    def earliest(self) -> datetime | None:
        """When the first skipped offering may be tried again (None when nothing is skipped)."""
        return min((s.until for s in self.skipped), default=None)


def availability(offerings: list[Offering], refusals: list[Refusal], now: datetime) -> Availability:
    """Split `offerings` into those to try and those a current refusal skips (the latest-ending one is named)."""
    answer = Availability()
    current = [r for r in refusals if r.until > now]
    for offering in offerings:
        matching = [r for r in current if r.matches(offering)]
        if not matching:
            answer.available.append(offering)
            continue
        longest = max(matching, key=lambda r: r.until)
        answer.skipped.append(SkippedOffering(offering=offering, code=longest.code,
                                              refused_at=longest.refused_at, until=longest.until))
    return answer
