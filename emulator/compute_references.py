"""Compute resources a VM references but the emulator does not serve: disk encryption sets, capacity reservation
groups, proximity placement groups, availability sets (by id), and the subscription features a VM may need.

A VM PUT naming one that is not known here is refused as Azure refuses a reference to nothing. The seed adds
one of each (emulator/seeding.py); tests add more through `POST /_emulator/references`. Encryption at host's
subscription feature is registered unless a test unregisters it (`POST /_emulator/features`).
"""

from __future__ import annotations

from emulator import arm_ids
from emulator.seed import SEED_RESOURCE_GROUP, SEED_SUBSCRIPTION

DISK_ENCRYPTION_SETS = "Microsoft.Compute/diskEncryptionSets"
CAPACITY_RESERVATION_GROUPS = "Microsoft.Compute/capacityReservationGroups"
PROXIMITY_PLACEMENT_GROUPS = "Microsoft.Compute/proximityPlacementGroups"
AVAILABILITY_SETS = "Microsoft.Compute/availabilitySets"
REFERENCE_TYPES = (DISK_ENCRYPTION_SETS, CAPACITY_RESERVATION_GROUPS, PROXIMITY_PLACEMENT_GROUPS, AVAILABILITY_SETS)
ENCRYPTION_AT_HOST_FEATURE = "Microsoft.Compute/EncryptionAtHost"
_REGISTERED_AT_START = (ENCRYPTION_AT_HOST_FEATURE,)

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


class ComputeReferences:
    def __init__(self) -> None:
        self._ids: dict[str, str] = {}  # lower-case id -> the id as added
        self._features: set[str] = {f.lower() for f in _REGISTERED_AT_START}

    def add(self, resource_id: str) -> None:
        if type_of(resource_id) is None:
            raise ValueError(f"not an id of one of {', '.join(REFERENCE_TYPES)}: {resource_id!r}")
        self._ids[arm_ids.key(resource_id)] = resource_id

    def remove(self, resource_id: str) -> bool:
        return self._ids.pop(arm_ids.key(resource_id), None) is not None

    def exists(self, resource_id: str) -> bool:
        return arm_ids.key(resource_id) in self._ids

    def ids(self) -> list[str]:
        return sorted(self._ids.values(), key=str.lower)

    def register(self, feature: str, registered: bool) -> None:
        (self._features.add if registered else self._features.discard)(feature.lower())

    def registered(self, feature: str) -> bool:
        return feature.lower() in self._features

    def features(self) -> list[str]:
        return sorted(self._features)

    def clear(self) -> None:
        self._ids.clear()
        self._features = {f.lower() for f in _REGISTERED_AT_START}
