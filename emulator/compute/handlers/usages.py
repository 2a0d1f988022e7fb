"""HTTP: the compute usages of a subscription in a location (emulator/compute/allocation/usages.py)."""

from __future__ import annotations

from aiohttp import web

from emulator.arm.responses import list_response
from emulator.arm.routing import Call, Route, route
from emulator.compute.allocation.usages import usages
from emulator.compute.allocation.vm_allocation import allocations

USAGES = "/subscriptions/{sub}/providers/Microsoft.Compute/locations/{location}/usages"


async def list_usages(call: Call) -> web.StreamResponse:
    state, subscription = call.backends.state, call.params["sub"]
    return list_response(call, usages(state.quotas, subscription, call.params["location"],
                                      allocations(state, subscription)))


def routes() -> list[Route]:
    return [route("GET", USAGES, "usages", "list", list_usages, azure="Usage_List")]
