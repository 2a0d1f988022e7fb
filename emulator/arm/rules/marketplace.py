"""The marketplace's ids (a publisher, an offer, a plan or sku) and image versions, as Azure holds them: Partner
Center gives new ones "lowercase letters and numbers, dashes, or underscores, and a maximum of 50 characters";
older ones use capitals and periods (Canonical:UbuntuServer:18.04-LTS). No marketplace id holds '/', '%', '#',
'?', a space or a control character, and none is '.' or '..': an id that breaks the rule names no offer.

What Azure answers for such an id (an offer it cannot find), per request:
- the terms of a plan (`agreements/current`): 404 NotFound, "Unable to find legal terms for this offer. Agreement
  has never been signed for this offer." (as Get-AzMarketplaceTerms shows it, Azure/azure-powershell#20443);
- a VM whose plan names it: 400 MarketplacePurchaseEligibilityFailed, inner BadRequest "The offer with Offer ID
  '<offer>' was not found." (confidential-containers/cloud-api-adaptor#886);
- a VM whose image reference names it: 404 PlatformImageNotFound, target imageReference, "The platform image
  '<publisher>:<offer>:<sku>:<version>' is not available." (clear-code/firefox-support-common#31).
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from emulator.arm.errors import ArmError

_ID = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,48}[A-Za-z0-9_])?")
_VERSION = re.compile(r"latest|[0-9]{1,10}(?:\.[0-9]{1,10}){0,3}")


def valid_id(value: str) -> bool:
    return bool(_ID.fullmatch(value))


def terms_not_found(offer: str, plan: str) -> ArmError:
    return ArmError(404, "NotFound", "Unable to find legal terms for this offer. Agreement has never been signed for "
                                     f"this offer. offer = '{offer}', sku = '{plan}',  Correlation Id: "
                                     f"'{uuid.uuid4()}'.")


def check_plan_ids(publisher: str, offer: str, plan: str) -> None:
    """A VM's plan: MarketplacePurchaseEligibilityFailed when its publisher, offer or plan can name no offer."""
    if all(valid_id(value) for value in (publisher, offer, plan)):
        return
    raise ArmError(400, "MarketplacePurchaseEligibilityFailed",
                   "Marketplace purchase eligibilty check returned errors. See inner errors for details. ",
                   details=[{"code": "BadRequest", "message":
                             f"The offer with Offer ID '{offer}' was not found. Try one of these: 1- Make sure the "
                             "offer name is written correctly. 2- If this offer was recently created, allow up to 30 "
                             "minutes for it to be available for purchase. 3- The offer may have been removed from "
                             f"the marketplace. Publisher ID: '{publisher}', Offer ID: '{offer}', Correlation ID "
                             f"'{uuid.uuid4()}'."}])


def check_platform_image(image: dict[str, Any]) -> None:
    """A marketplace image reference (no id): PlatformImageNotFound when a part of it can name no image."""
    parts = [str(image.get(key) or "") for key in ("publisher", "offer", "sku")]
    version = str(image.get("version") or "latest")
    if not any(parts) or (all(valid_id(part) for part in parts) and _VERSION.fullmatch(version)):
        return
    urn = ":".join([*parts, version])
    raise ArmError(404, "PlatformImageNotFound",
                   f"The platform image '{urn}' is not available. Verify that all fields in the storage profile are "
                   "correct. For more details about storage profile information, please refer to "
                   "https://aka.ms/storageprofile", target="imageReference")
