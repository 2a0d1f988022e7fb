"""HTTP: Resource Health's availability status of a VM (`availability_statuses.get_by_resource`)."""

from __future__ import annotations

from aiohttp import web

from emulator.arm.common import get_existing
from emulator.arm.responses import json_response
from emulator.arm.routing import COMPUTE, Call, Route, route
from emulator.compute.virtual_machines import VM_TYPE
from emulator.health.resource_health import status_body

CURRENT = COMPUTE + "/virtualMachines/{name}/providers/Microsoft.ResourceHealth/availabilityStatuses/current"


async def get(call: Call) -> web.StreamResponse:
    vm = get_existing(call.backends.state, call.scope, VM_TYPE, call.params["name"])
    expand = (call.query("$expand") or "").lower()
    return json_response(200, status_body(vm, call.backends.state, recommended_actions="recommendedactions" in expand))


def routes() -> list[Route]:
    return [route("GET", CURRENT, "availabilityStatuses", "get", get, azure="AvailabilityStatuses_GetByResource")]
