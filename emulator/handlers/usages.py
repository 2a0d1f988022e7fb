"""HTTP: the compute usages of a subscription in a location (emulator/usages.py)."""

from __future__ import annotations

from aiohttp import web

from emulator.backends.vm_allocation import allocations
from emulator.handlers.responses import list_response
from emulator.handlers.routing import Call, Route, route
from emulator.usages import usages

USAGES = "/subscriptions/{sub}/providers/Microsoft.Compute/locations/{location}/usages"


async def list_usages(call: Call) -> web.StreamResponse:
    state, subscription = call.backends.state, call.params["sub"]
    return list_response(call, usages(state.quotas, subscription, call.params["location"],
                                      allocations(state, subscription)))


def routes() -> list[Route]:
    return [route("GET", USAGES, "usages", "list", list_usages, azure="Usage_List")]
