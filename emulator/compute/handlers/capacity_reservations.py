"""HTTP: capacity reservation groups and their capacity reservations (emulator/compute/capacity_reservations.py).
Both PUTs are answered at once, Succeeded: the SDK's poller ends on the body's state."""

from __future__ import annotations

from aiohttp import web

from emulator.arm import errors
from emulator.arm.responses import json_response
from emulator.arm.routing import COMPUTE, Call, Route, route
from emulator.compute.capacity_reservations import GROUP_TYPE, RESERVATION_TYPE

GROUP = COMPUTE + "/capacityReservationGroups/{group}"
RESERVATION = GROUP + "/capacityReservations/{name}"


def _group_id(call: Call) -> str:
    return call.scope.resource_id(GROUP_TYPE, call.params["group"])


def _expanded(call: Call) -> bool:
    return (call.query("$expand") or "").lower() == "instanceview"


async def put_group(call: Call) -> web.StreamResponse:
    state = call.backends.state
    status, body = state.reservations.put_group(_group_id(call), call.params["group"], call.body)
    state.catalog.add_reference(body["id"])  # a VM may name it from now on
    return json_response(status, state.reservations.group_view(state.store, body, False))


async def get_group(call: Call) -> web.StreamResponse:
    state = call.backends.state
    group = state.reservations.group(_group_id(call))
    if group is None:
        raise errors.resource_not_found(GROUP_TYPE, call.params["group"], call.params["rg"])
    return json_response(200, state.reservations.group_view(state.store, group, _expanded(call)))


async def put_reservation(call: Call) -> web.StreamResponse:
    state = call.backends.state
    status, body = state.reservations.put_reservation(_group_id(call), call.params["name"], call.body)
    return json_response(status, state.reservations.reservation_view(state.store, body, False))


async def get_reservation(call: Call) -> web.StreamResponse:
    state = call.backends.state
    found = state.reservations.reservation(f"{_group_id(call)}/capacityReservations/{call.params['name']}")
    if found is None:
        raise errors.resource_not_found(RESERVATION_TYPE, f"{call.params['group']}/{call.params['name']}",
                                        call.params["rg"])
    return json_response(200, state.reservations.reservation_view(state.store, found, _expanded(call)))


def routes() -> list[Route]:
    kind = "capacityReservations"
    return [
        route("PUT", GROUP, "capacityReservationGroups", "put", put_group,
              azure="CapacityReservationGroups_CreateOrUpdate"),
        route("GET", GROUP, "capacityReservationGroups", "get", get_group, azure="CapacityReservationGroups_Get"),
        route("PUT", RESERVATION, kind, "put", put_reservation, azure="CapacityReservations_CreateOrUpdate"),
        route("GET", RESERVATION, kind, "get", get_reservation, azure="CapacityReservations_Get"),
    ]
