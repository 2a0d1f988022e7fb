"""What each VM size of a location can do, as the resource SKUs API says (`AcceleratedNetworkingEnabled`), read
by the shared offerings memory at most once a day per location (workflows/offerings/skus.py) and handed to a
machine with the offering it claims, so a machine asks Azure nothing more for it. Pure."""

from datetime import datetime, timedelta

from pydantic import BaseModel

SKUS_READ_EVERY = timedelta(days=1)  # sizes' capabilities change with Azure's hardware, not by the minute
SKUS_READ_LEASE = timedelta(minutes=2)  # one machine reads; another is asked only if it never answers
# A skipped offering's code: the spec asks accelerated networking, the size cannot (models/offerings.py).
NO_ACCELERATED_NETWORKING = "AcceleratedNetworkingNotSupported"


class SkuReading(BaseModel):
    """One reading: size (lower case) -> AcceleratedNetworkingEnabled; `error`: why the reading failed."""

    taken_at: datetime
    accelerated: dict[str, bool] = {}
    error: str = ""


def accelerated_of(reading: SkuReading | None, vm_size: str) -> bool | None:
    """Whether the size supports accelerated networking; None when not known (no reading, or not listed)."""
    if reading is None:
        return None
    return reading.accelerated.get(vm_size.lower())


def skus_due(reading: SkuReading | None, now: datetime) -> bool:
    return reading is None or reading.taken_at + SKUS_READ_EVERY <= now


def without_accelerated_networking(vm_size: str) -> str:
    return (f"accelerated_networking: {vm_size} does not support accelerated networking "
            "(resource SKUs: AcceleratedNetworkingEnabled False)")
