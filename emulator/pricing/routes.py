"""HTTP of the Retail Prices API (`GET /api/retail/prices`, no authentication, as prices.azure.com) and the control
calls that set a price (`POST /_emulator/prices`) or a Spot eviction bucket (`POST /_emulator/spot-eviction-rates`)."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from emulator.arm.routing import read_json
from emulator.pricing.retail_prices import PAGE
from emulator.pricing.spot_eviction import BUCKETS
from emulator.registry import Backends


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")


def _size_and_location(body: Any, extra: set[str]) -> tuple[str, str, dict[str, Any]]:
    known = {"vm_size", "location", *extra}
    if not isinstance(body, dict) or set(body) - known:
        raise ValueError(f"the body must be a JSON object with fields {', '.join(sorted(known))}")
    size, location = body.get("vm_size"), body.get("location")
    if not isinstance(size, str) or not size or not isinstance(location, str) or not location:
        raise ValueError("'vm_size' and 'location' must be non-empty strings")
    return size, location.lower(), body


def add_routes(app: web.Application, backends: Backends) -> None:
    state = backends.state

    async def prices(request: web.Request) -> web.Response:
        skip_text = request.query.get("$skip", "0")
        if not skip_text.isdigit():
            return _json({"Error": {"Code": "BadRequest", "Message": f"Invalid $skip: {skip_text!r}"}}, 400)
        base = f"{request.scheme}://{request.host}{request.path}"
        try:
            page = state.retail_prices.page(base, request.query.get("$filter", ""), int(skip_text),
                                            min(PAGE, state.settings.page_size))
        except ValueError as exc:
            return _json({"Error": {"Code": "BadRequest", "Message": str(exc)}}, 400)
        state.request_counts["retailPrices.get"] += 1
        return _json(page)

    async def set_price(request: web.Request) -> web.Response:
        try:
            size, location, body = _size_and_location(await read_json(request), {"spot", "usd_per_hour"})
            price = body.get("usd_per_hour")
            if isinstance(price, bool) or not isinstance(price, int | float) or price < 0:
                raise ValueError("'usd_per_hour' must be a number >= 0")
        except ValueError as exc:
            return _json({"error": {"code": "InvalidPrice", "message": str(exc)}}, 400)
        state.retail_prices.set(size, location, bool(body.get("spot")), float(price))
        return _json({"vm_size": size, "location": location, "spot": bool(body.get("spot")), "usd_per_hour": price},
                     201)

    async def set_eviction(request: web.Request) -> web.Response:
        try:
            size, location, body = _size_and_location(await read_json(request), {"eviction_rate"})
            if body.get("eviction_rate") not in BUCKETS:
                raise ValueError(f"'eviction_rate' must be one of {', '.join(BUCKETS)}")
        except ValueError as exc:
            return _json({"error": {"code": "InvalidEvictionRate", "message": str(exc)}}, 400)
        state.set_spot_eviction(size, location, body["eviction_rate"])
        return _json({"vm_size": size, "location": location, "eviction_rate": body["eviction_rate"]}, 201)

    app.router.add_get("/api/retail/prices", prices)
    app.router.add_post("/_emulator/prices", set_price)
    app.router.add_post("/_emulator/spot-eviction-rates", set_eviction)
