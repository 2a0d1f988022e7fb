"""The spec's references to Compute resources azmc uses but never creates: a disk encryption set, a capacity
reservation group, a proximity placement group, an availability set. Each is an ARM resource id, "" for none,
checked for its type's shape and Azure's name rules (models/arm_ids.py) so a typo is refused before anything is
created (the error names the field).

Azure refuses a VM that is both zonal and in an availability set, and a Spot VM in an availability set:
`check_placement` refuses both first, naming the fields.
"""

from collections.abc import Sequence
from typing import Annotated

from models.arm_ids import (
    AVAILABILITY_SET,
    CAPACITY_RESERVATION_GROUP,
    DISK_ENCRYPTION_SET,
    PROXIMITY_PLACEMENT_GROUP,
    arm_id,
)

DiskEncryptionSetId = Annotated[str, *arm_id(DISK_ENCRYPTION_SET)]
CapacityReservationGroupId = Annotated[str, *arm_id(CAPACITY_RESERVATION_GROUP)]
ProximityPlacementGroupId = Annotated[str, *arm_id(PROXIMITY_PLACEMENT_GROUP)]
AvailabilitySetId = Annotated[str, *arm_id(AVAILABILITY_SET)]


def check_placement(availability_set_id: str, zones: Sequence[str], priority: str) -> None:
    """ValueError naming both fields for the combinations Azure refuses on a VM PUT."""
    if not availability_set_id:
        return
    zonal = [zone for zone in zones if zone]
    if zonal:
        raise ValueError(f"availability_set_id and zones: Azure does not place a VM in both an availability set "
                         f"and an availability zone (zones {', '.join(zonal)}); leave zones regional ([\"\"]) or "
                         "drop availability_set_id")
    if priority == "Spot":
        raise ValueError("availability_set_id and priority: Azure does not put a Spot VM in an availability set")
