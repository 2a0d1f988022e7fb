"""The spec's references to Compute resources azmc uses but never creates: a disk encryption set, a capacity
reservation group, a proximity placement group, an availability set. Each is an ARM resource id, "" for none,
checked for its type's shape here so a typo is refused before anything is created (the error names the field).

Azure refuses a VM that is both zonal and in an availability set, and a Spot VM in an availability set:
`check_placement` refuses both first, naming the fields.
"""

import re
from collections.abc import Sequence
from typing import Annotated

from pydantic import AfterValidator

from models.arm_names import RESOURCE_GROUP_NAME, NameRule

# Availability sets, proximity placement groups, capacity reservation groups and disk encryption sets are
# 1-80 characters of the same alphabet as managed disks.
COMPUTE_RESOURCE_NAME = NameRule(
    "name", 1, 80, re.compile(r"[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9_])?"),
    "letters, digits, '_', '.' and '-', starting with a letter or digit, ending with a letter, digit or '_'")


def _id_checker(type_path: str) -> AfterValidator:
    """A validator of `/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Compute/<type_path>/<name>`
    (ARM ids are case-insensitive); "" passes: the field is not set."""
    shape = re.compile(
        r"/subscriptions/(?P<subscription>[0-9a-fA-F-]{36})/resourceGroups/(?P<rg>[^/]+)/providers/"
        rf"Microsoft\.Compute/{type_path}/(?P<name>[^/]+)",
        re.IGNORECASE,
    )
    example = f"/subscriptions/<subscription id>/resourceGroups/<rg>/providers/Microsoft.Compute/{type_path}/<name>"

    def check(value: str) -> str:
        if not value:
            return value
        parts = shape.fullmatch(value)
        if not parts:
            raise ValueError(f"an ARM resource id of a {type_path} resource: {example}")
        for rule, name in ((RESOURCE_GROUP_NAME, parts["rg"]), (COMPUTE_RESOURCE_NAME, parts["name"])):
            problem = rule.problem(name)
            if problem:
                raise ValueError(f"{rule.kind} {name!r}: {problem}")
        return value

    return AfterValidator(check)


DiskEncryptionSetId = Annotated[str, _id_checker("diskEncryptionSets")]
CapacityReservationGroupId = Annotated[str, _id_checker("capacityReservationGroups")]
ProximityPlacementGroupId = Annotated[str, _id_checker("proximityPlacementGroups")]
AvailabilitySetId = Annotated[str, _id_checker("availabilitySets")]


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
