"""HTTP: the compute resource SKUs of a subscription (`resource_skus.list`), for the sizes the emulator knows.

Azure filters by one location only (`$filter=location eq '<location>'`); without a filter it lists every
location, here the seed's: the emulator has no catalogue of regions.
"""

from __future__ import annotations

import re

from aiohttp import web

from emulator.arm import errors
from emulator.arm.responses import list_response
from emulator.arm.routing import Call, Route, route
from emulator.compute.allocation.size_capabilities import REGION_ZONES, known_sizes, sku_entry
from emulator.seed import SEED_LOCATION

SKUS = "/subscriptions/{sub}/providers/Microsoft.Compute/skus"
_LOCATION_FILTER = re.compile(r"^\s*location\s+eq\s+'(?P<location>[^']*)'\s*$", re.IGNORECASE)


def location_of(filter_text: str | None) -> str:
    if filter_text is None:
        return SEED_LOCATION
    found = _LOCATION_FILTER.match(filter_text)
    if found is None:
        raise errors.ArmError(400, "InvalidFilterInQueryString",
                              f"The filter '{filter_text}' is not supported: only location eq '<location>'.")
    return found["location"].replace(" ", "").lower()


async def list_skus(call: Call) -> web.StreamResponse:
    location = location_of(call.query("$filter"))
    return list_response(call, [sku_entry(name, location, list(REGION_ZONES)) for name in known_sizes()])


def routes() -> list[Route]:
    return [route("GET", SKUS, "resourceSkus", "list", list_skus, azure="ResourceSkus_List")]
