"""What exists outside the emulated resource groups that a VM refers to: user-assigned identities, images
(managed, gallery, shared and community gallery), marketplace terms agreements, the Compute resources a VM may
name (emulator/compute/compute_references.py) and the subscription's registered features. Kept apart from the resource
store on purpose: these are not azmc's resources, so listings, the graph and the sweep never see them. The seed
adds some of each; tests add more through `POST /_emulator/catalog` (emulator/control/control_catalog.py)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from emulator.arm import arm_ids
from emulator.compute.compute_references import REFERENCE_TYPES, REGISTERED_AT_START, seed_reference_id, type_of
from emulator.seed import SEED_IDENTITIES, seed_identity_id, seed_image_ids


@dataclass
class VmCatalog:
    # lower-case identity id -> (principalId, clientId)
    identities: dict[str, tuple[str, str]] = field(default_factory=dict)
    images: set[str] = field(default_factory=set)  # lower-case image ids
    # (publisher, offer, plan) lower-case -> accepted
    agreements: dict[tuple[str, str, str], bool] = field(default_factory=dict)
    references: dict[str, str] = field(default_factory=dict)  # lower-case id -> the id as added
    features: set[str] = field(default_factory=lambda: {f.lower() for f in REGISTERED_AT_START})

    def seed(self, subscription: str) -> None:
        for name in SEED_IDENTITIES:
            self.add_identity(seed_identity_id(name, subscription))
        for image_id in seed_image_ids(subscription):
            self.add_image(image_id)
        for resource_type in REFERENCE_TYPES:  # one disk encryption set, reservation group, placement group...
            self.add_reference(seed_reference_id(resource_type, subscription))

    def clear(self) -> None:
        self.identities.clear()
        self.images.clear()
        self.agreements.clear()
        self.references.clear()
        self.features = {f.lower() for f in REGISTERED_AT_START}

    def add_identity(self, identity_id: str) -> dict[str, str]:
        principal, client = self.identities.setdefault(arm_ids.key(identity_id),
                                                       (str(uuid.uuid4()), str(uuid.uuid4())))
        return {"principalId": principal, "clientId": client}

    def identity(self, identity_id: str) -> dict[str, str] | None:
        found = self.identities.get(arm_ids.key(identity_id))
        return None if found is None else {"principalId": found[0], "clientId": found[1]}

    def add_image(self, image_id: str) -> None:
        self.images.add(image_id.lower())

    def image_exists(self, image_id: str) -> bool:
        return image_id.lower() in self.images

    def accepted(self, publisher: str, offer: str, plan: str) -> bool:
        return self.agreements.get(_plan_key(publisher, offer, plan), False)

    def set_accepted(self, publisher: str, offer: str, plan: str, accepted: bool) -> None:
        self.agreements[_plan_key(publisher, offer, plan)] = accepted

    def add_reference(self, resource_id: str) -> None:
        if type_of(resource_id) is None:
            raise ValueError(f"not an id of one of {', '.join(REFERENCE_TYPES)}: {resource_id!r}")
        self.references[arm_ids.key(resource_id)] = resource_id

    def reference_exists(self, resource_id: str) -> bool:
        return arm_ids.key(resource_id) in self.references

    def register(self, feature: str, registered: bool) -> None:
        (self.features.add if registered else self.features.discard)(feature.lower())

    def registered(self, feature: str) -> bool:
        return feature.lower() in self.features

    def listing(self) -> dict[str, Any]:
        return {"identities": sorted(self.identities), "images": sorted(self.images),
                "agreements": [{"publisher": p, "offer": o, "plan": n, "accepted": a}
                               for (p, o, n), a in sorted(self.agreements.items())],
                "references": sorted(self.references.values(), key=str.lower), "features": sorted(self.features)}


def _plan_key(publisher: str, offer: str, plan: str) -> tuple[str, str, str]:
    return publisher.lower(), offer.lower(), plan.lower()
