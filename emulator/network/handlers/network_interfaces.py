"""HTTP: network interfaces."""

from __future__ import annotations

from aiohttp import web

from emulator.arm.responses import json_response, list_response, outcome_response
from emulator.arm.routing import NETWORK, Call, Route, route

NIC = NETWORK + "/networkInterfaces/{name}"


async def put(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.nics.put(call.scope, call.params["name"], call.body))


async def update_tags(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.nics.update_tags(call.scope, call.params["name"], call.body))


async def get(call: Call) -> web.StreamResponse:
    return json_response(200, call.backends.nics.get(call.scope, call.params["name"]))


async def delete(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.nics.delete(call.scope, call.params["name"]))


async def list_in_group(call: Call) -> web.StreamResponse:
    return list_response(call, call.backends.nics.list(call.params["sub"], call.params["rg"]))


async def list_all(call: Call) -> web.StreamResponse:
    return list_response(call, call.backends.nics.list(call.params["sub"], None))


def routes() -> list[Route]:
    return [
        route("PUT", NIC, "networkInterfaces", "put", put, azure="NetworkInterfaces_CreateOrUpdate"),
        route("PATCH", NIC, "networkInterfaces", "patch", update_tags, azure="NetworkInterfaces_UpdateTags"),
        route("GET", NIC, "networkInterfaces", "get", get, azure="NetworkInterfaces_Get"),
        route("DELETE", NIC, "networkInterfaces", "delete", delete, azure="NetworkInterfaces_Delete"),
        route("GET", NETWORK + "/networkInterfaces", "networkInterfaces", "list", list_in_group,
              azure="NetworkInterfaces_List"),
        route("GET", "/subscriptions/{sub}/providers/Microsoft.Network/networkInterfaces", "networkInterfaces",
              "list", list_all, azure="NetworkInterfaces_ListAll"),
    ]
