"""The names of the Compute resources a VM references but the emulator does not serve (disk encryption sets,
capacity reservation groups, proximity placement groups, availability sets) and of the subscription feature a VM
may need. Which exist is kept in the catalog (emulator/compute/vm_catalog.py): a VM PUT naming one that does not is
refused as Azure refuses a reference to nothing."""

from __future__ import annotations

from emulator.seed import SEED_RESOURCE_GROUP, SEED_SUBSCRIPTION

DISK_ENCRYPTION_SETS = "Microsoft.Compute/diskEncryptionSets"
CAPACITY_RESERVATION_GROUPS = "Microsoft.Compute/capacityReservationGroups"
PROXIMITY_PLACEMENT_GROUPS = "Microsoft.Compute/proximityPlacementGroups"
AVAILABILITY_SETS = "Microsoft.Compute/availabilitySets"
REFERENCE_TYPES = (DISK_ENCRYPTION_SETS, CAPACITY_RESERVATION_GROUPS, PROXIMITY_PLACEMENT_GROUPS, AVAILABILITY_SETS)
ENCRYPTION_AT_HOST_FEATURE = "Microsoft.Compute/EncryptionAtHost"
REGISTERED_AT_START = (ENCRYPTION_AT_HOST_FEATURE,)

# The seed's one of each (names every test and demo may rely on).
SEED_REFERENCE_NAMES = {
    DISK_ENCRYPTION_SETS: "azmc-des",
    CAPACITY_RESERVATION_GROUPS: "azmc-crg",
    PROXIMITY_PLACEMENT_GROUPS: "azmc-ppg",
    AVAILABILITY_SETS: "azmc-avset",
}


def seed_reference_id(resource_type: str, subscription: str = SEED_SUBSCRIPTION) -> str:
    namespace, kind = resource_type.split("/")
    return (f"/subscriptions/{subscription}/resourceGroups/{SEED_RESOURCE_GROUP}/providers/{namespace}/"
            f"{kind}/{SEED_REFERENCE_NAMES[resource_type]}")


def type_of(resource_id: str) -> str | None:
    """The reference type of an id (one of REFERENCE_TYPES), None for any other."""
    lowered = resource_id.lower()
    return next((t for t in REFERENCE_TYPES if f"/providers/{t.lower()}/" in lowered), None)


# The seed's ids, as tests and examples name them.
SEED_DES, SEED_CRG, SEED_PPG, SEED_AVSET = (seed_reference_id(t) for t in REFERENCE_TYPES)
