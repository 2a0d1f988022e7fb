"""HTTP: managed disks."""

from __future__ import annotations

from aiohttp import web

from emulator.arm.responses import json_response, list_response, outcome_response
from emulator.arm.routing import COMPUTE, Call, Route, route

DISK = COMPUTE + "/disks/{name}"


async def put(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.disks.put(call.scope, call.params["name"], call.body))


async def patch(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.disks.patch(call.scope, call.params["name"], call.body))


async def get(call: Call) -> web.StreamResponse:
    return json_response(200, call.backends.disks.get(call.scope, call.params["name"]))


async def delete(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.disks.delete(call.scope, call.params["name"]))


async def list_in_group(call: Call) -> web.StreamResponse:
    return list_response(call, call.backends.disks.list(call.params["sub"], call.params["rg"]))


async def list_all(call: Call) -> web.StreamResponse:
    return list_response(call, call.backends.disks.list(call.params["sub"], None))


def routes() -> list[Route]:
    return [
        route("PUT", DISK, "disks", "put", put, azure="Disks_CreateOrUpdate"),
        route("PATCH", DISK, "disks", "patch", patch, azure="Disks_Update"),
        route("GET", DISK, "disks", "get", get, azure="Disks_Get"),
        route("DELETE", DISK, "disks", "delete", delete, azure="Disks_Delete"),
        route("GET", COMPUTE + "/disks", "disks", "list", list_in_group, azure="Disks_ListByResourceGroup"),
        route("GET", "/subscriptions/{sub}/providers/Microsoft.Compute/disks", "disks", "list", list_all,
              azure="Disks_List"),
    ]
