"""HTTP: the marketplace terms agreement of a plan (Microsoft.MarketplaceOrdering `agreements/current`), read and
accepted through azure-mgmt-marketplaceordering. A VM whose plan's terms are not accepted is refused
(emulator/compute/vm_features.py)."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from emulator.arm.errors import ArmError
from emulator.arm.responses import json_response
from emulator.arm.routing import Call, Route, route
from emulator.arm.rules.marketplace import terms_not_found, valid_id

AGREEMENT = ("/subscriptions/{sub}/providers/Microsoft.MarketplaceOrdering/offerTypes/{offer_type}/publishers/"
             "{publisher}/offers/{offer}/plans/{plan}/agreements/current")


def _terms(call: Call) -> dict[str, Any]:
    p = call.params
    if p["offer_type"].lower() != "virtualmachine":
        raise ArmError(400, "BadRequest", f"Offer type '{p['offer_type']}' is not supported; use 'virtualmachine'.")
    if not all(valid_id(p[key]) for key in ("publisher", "offer", "plan")):  # no offer has such an id
        raise terms_not_found(p["offer"], p["plan"])
    catalog = call.backends.state.catalog
    links = f"https://mpstoreeu.blob.core.windows.net/legalterms/3E5ED_legalterms_{p['publisher'].upper()}"
    return {
        "id": (f"/subscriptions/{p['sub']}/providers/Microsoft.MarketplaceOrdering/offerTypes/VirtualMachine/"
               f"publishers/{p['publisher']}/offers/{p['offer']}/plans/{p['plan']}/agreements/current"),
        "name": p["plan"],
        "type": "Microsoft.MarketplaceOrdering/offertypes",
        "properties": {
            "publisher": p["publisher"], "product": p["offer"], "plan": p["plan"],
            "licenseTextLink": f"{links}%253a24{p['offer'].upper()}.txt",
            "privacyPolicyLink": "https://www.example.com/privacy",
            "marketplaceTermsLink": "https://mpcprodsa.blob.core.windows.net/marketplaceterms/3EDEF_marketplaceterms_"
                                    "VIRTUALMACHINE%253a24AAK2OAIZEAWW5H4MSP5KSTVB6NDKKRTUBAU23BRFTWN4YC2MQLJUB5ZEYUOUJB"
                                    "VF3YK34CIVPZL2HWYASPGDUY5O2FWEGRBYOXWZE5Y.txt",
            "retrieveDatetime": call.backends.state.clock.utc_iso(),
            "signature": "EMULATOR" + p["plan"].upper().replace("-", ""),
            "accepted": catalog.accepted(p["publisher"], p["offer"], p["plan"]),
        },
    }


async def get(call: Call) -> web.StreamResponse:
    return json_response(200, _terms(call))


async def put(call: Call) -> web.StreamResponse:
    properties = call.body.get("properties")
    accepted = properties.get("accepted") if isinstance(properties, dict) else None
    if not isinstance(accepted, bool):
        raise ArmError(400, "BadRequest", "The request must give properties.accepted (true or false).")
    _terms(call)  # the offer type is checked before anything changes
    p = call.params
    call.backends.state.catalog.set_accepted(p["publisher"], p["offer"], p["plan"], accepted)
    return json_response(200, _terms(call))


def routes() -> list[Route]:
    return [route("GET", AGREEMENT, "marketplaceAgreements", "get", get, azure="MarketplaceAgreements_Get"),
            route("PUT", AGREEMENT, "marketplaceAgreements", "put", put, azure="MarketplaceAgreements_Create")]
