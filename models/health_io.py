"""Inputs and answers of the health activities: Resource Health, the guest's address, a probe."""

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from models.health import Probe

AVAILABLE = "Available"
UNAVAILABLE = "Unavailable"
# Resource Health's contexts: an outage Azure caused (a host, a region), and a stop or deallocation someone asked for.
PLATFORM_INITIATED = "Platform Initiated"
CUSTOMER_INITIATED = "Customer Initiated"


class _Io(BaseModel):
    model_config = ConfigDict(frozen=True)


class ResourceHealthReading(_Io):
    """Azure Resource Health's current availability status of a VM (availabilityStatuses/current)."""

    state: str = ""  # Available, Unavailable, Degraded, Unknown; "" when Azure has none (a VM too new)
    summary: str = ""
    reason_type: str = ""  # "Unplanned", "Planned", "User Initiated", ...
    context: str = ""  # "Platform Initiated", "Customer Initiated", ...
    since: datetime | None = None  # occuredTime: when this state began

    @property
    def unavailable(self) -> bool:
        return self.state == UNAVAILABLE

    def reason(self) -> str:
        parts = [part for part in (self.context, self.reason_type) if part]
        return f"{self.summary} ({', '.join(parts)})" if parts and self.summary else self.summary or ", ".join(parts)


class ProbeInput(_Io):
    address: str  # the NIC's private IP
    probe: Probe


class ProbeResult(_Io):
    ok: bool
    detail: str  # what was asked and what answered, for the status
