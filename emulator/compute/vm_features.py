"""A VM write's identity, image, purchase plan and boot diagnostics, checked and filled as Azure does.

`check` runs before the write changes anything (Azure refuses at once: a user-assigned identity, an image that
does not exist, a plan whose terms the subscription has not accepted); `fill` adds what Azure computes: the
identities' principal and client ids, the tenant.
"""

from __future__ import annotations

import copy
import uuid
from typing import Any

from emulator.arm.errors import ArmError
from emulator.arm.rules.marketplace import check_plan_ids, check_platform_image
from emulator.arm.store import Resource
from emulator.seed import SEED_TENANT
from emulator.state import EmulatorState

_GALLERY_FIELDS = ("sharedGalleryImageId", "communityGalleryImageId")


def check(state: EmulatorState, vm_id: str, request: dict[str, Any], existing: Resource | None) -> None:
    _check_identities(state, vm_id, request.get("identity"))
    if existing is None:  # the image and plan are fixed at creation (vm_model.py refuses an image change)
        image = _object(_object(_object(request.get("properties")).get("storageProfile")).get("imageReference"))
        _check_image(state, image, str(request.get("location") or ""))
        _check_plan(state, request.get("plan"))


def fill(state: EmulatorState, body: dict[str, Any], existing: Resource | None) -> None:
    """The identity as Azure returns it: principal and tenant ids of the system-assigned identity (kept across
    updates), principal and client ids of each user-assigned one; type None removes it."""
    identity = body.get("identity")
    if not isinstance(identity, dict):
        return
    kind = str(identity.get("type") or "None").replace(" ", "").lower()
    if kind == "none":
        body.pop("identity")
        return
    before = (existing.body.get("identity") or {}) if existing is not None else {}
    identity = copy.deepcopy(identity)
    if "systemassigned" in kind:
        identity["principalId"] = before.get("principalId") or str(uuid.uuid4())
        identity["tenantId"] = SEED_TENANT
    else:
        identity.pop("principalId", None)
        identity.pop("tenantId", None)
    users = identity.pop("userAssignedIdentities", None) or {}
    if "userassigned" in kind:
        identity["userAssignedIdentities"] = {identity_id: state.catalog.identity(identity_id)
                                              for identity_id, value in users.items() if value is not None}
    body["identity"] = identity


def _object(value: Any) -> dict[str, Any]:
    """A JSON object, or {} for anything else (the body's shape is refused elsewhere, not here)."""
    return value if isinstance(value, dict) else {}


def _check_identities(state: EmulatorState, vm_id: str, identity: Any) -> None:
    if not isinstance(identity, dict):
        return
    kind = str(identity.get("type") or "").replace(" ", "").lower()
    users = identity.get("userAssignedIdentities") or {}
    if not isinstance(users, dict):
        raise ArmError(400, "InvalidParameter", "'userAssignedIdentities' must be an object keyed by identity id.",
                       target="identity.userAssignedIdentities")
    if "userassigned" in kind and not users:
        raise ArmError(400, "InvalidParameter", "The identity type 'UserAssigned' needs at least one user assigned "
                       "identity in 'userAssignedIdentities'.", target="identity.userAssignedIdentities")
    for identity_id, value in users.items():
        if value is None:  # null removes an identity in a PATCH
            continue
        if state.catalog.identity(identity_id) is None:
            raise ArmError(400, "FailedIdentityOperation",
                           f"Identity operation for resource '{vm_id}' failed with error 'Failed to perform resource "
                           "identity operation. Status: 'NotFound'. Response: '{\"error\":{\"code\":\"NotFound\","
                           f"\"message\":\"Resource '{identity_id}' was not found.\"}}}}'.'.")


def _check_image(state: EmulatorState, image: dict[str, Any], location: str) -> None:
    image_id = str(image.get("id") or "")
    if not image_id and not any(image.get(name) for name in _GALLERY_FIELDS):
        check_platform_image(image)
    if image_id and not state.catalog.image_exists(image_id):
        if "/galleries/" in image_id.lower():
            raise ArmError(404, "GalleryImageNotFound",
                           f"The gallery image {image_id} is not available in {location} region. Please contact "
                           "image owner to replicate to this region, or change your requested region.",
                           target="imageReference")
        raise ArmError(400, "InvalidParameter", f"The Image '{image_id}' cannot be found in '{location}' region.",
                       target="imageReference")
    for name in _GALLERY_FIELDS:
        gallery_id = str(image.get(name) or "")
        if gallery_id and not state.catalog.image_exists(gallery_id):
            raise ArmError(404, "GalleryImageNotFound",
                           f"The gallery image {gallery_id} is not available in {location} region. Please contact "
                           "image owner to replicate to this region, or change your requested region.",
                           target="imageReference")


def _check_plan(state: EmulatorState, plan: Any) -> None:
    if not isinstance(plan, dict):
        return
    publisher, offer, name = (str(plan.get(key) or "") for key in ("publisher", "product", "name"))
    check_plan_ids(publisher, offer, name)
    if state.catalog.accepted(publisher, offer, name):
        return
    raise ArmError(400, "MarketplacePurchaseEligibilityFailed",
                   "Marketplace purchase eligibilty check returned errors. See inner errors for details. ",
                   details=[{"code": "BadRequest", "message":
                             f"Offer with PublisherId: '{publisher}', OfferId: '{offer}' cannot be purchased due to "
                             "validation errors. For more information see details. Correlation Id: "
                             f"'{uuid.uuid4()}' Legal terms have not been accepted for this item on this "
                             f"subscription: '{state.config.subscription}'. To accept legal terms using PowerShell, "
                             "please use Get-AzMarketplaceTerms and Set-AzMarketplaceTerms API(s) or select the "
                             "offer from the Azure portal and deploy to get the terms accepted."}])


def vm_features_view(vm: Resource) -> dict[str, Any]:
    """The control API's view of a VM's identity, plan, image and boot diagnostics, as stored."""
    props = vm.properties
    return {"identity": vm.body.get("identity"), "plan": vm.body.get("plan"),
            "imageReference": (props.get("storageProfile") or {}).get("imageReference"),
            "bootDiagnostics": ((props.get("diagnosticsProfile") or {}).get("bootDiagnostics") or {}).get("enabled",
                                                                                                            False)}
