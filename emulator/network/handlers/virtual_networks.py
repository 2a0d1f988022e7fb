"""HTTP: virtual networks and subnets."""

from __future__ import annotations

from aiohttp import web

from emulator.arm.responses import json_response, list_response, outcome_response
from emulator.arm.routing import NETWORK, Call, Route, route

VNET = NETWORK + "/virtualNetworks/{name}"
SUBNET = NETWORK + "/virtualNetworks/{vnet}/subnets/{name}"


async def put(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.vnets.put(call.scope, call.params["name"], call.body))


async def get(call: Call) -> web.StreamResponse:
    return json_response(200, call.backends.vnets.get(call.scope, call.params["name"]))


async def delete(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.vnets.delete(call.scope, call.params["name"]))


async def list_in_group(call: Call) -> web.StreamResponse:
    return list_response(call, call.backends.vnets.list(call.params["sub"], call.params["rg"]))


async def list_all(call: Call) -> web.StreamResponse:
    return list_response(call, call.backends.vnets.list(call.params["sub"], None))


async def put_subnet(call: Call) -> web.StreamResponse:
    outcome = call.backends.vnets.put_subnet(call.scope, call.params["vnet"], call.params["name"], call.body)
    return outcome_response(call, outcome)


async def get_subnet(call: Call) -> web.StreamResponse:
    return json_response(200, call.backends.vnets.get_subnet(call.scope, call.params["vnet"], call.params["name"]))


async def delete_subnet(call: Call) -> web.StreamResponse:
    outcome = call.backends.vnets.delete_subnet(call.scope, call.params["vnet"], call.params["name"])
    return outcome_response(call, outcome)


async def list_subnets(call: Call) -> web.StreamResponse:
    return list_response(call, call.backends.vnets.list_subnets(call.scope, call.params["vnet"]))


def routes() -> list[Route]:
    return [
        route("PUT", VNET, "virtualNetworks", "put", put, azure="VirtualNetworks_CreateOrUpdate"),
        route("GET", VNET, "virtualNetworks", "get", get, azure="VirtualNetworks_Get"),
        route("DELETE", VNET, "virtualNetworks", "delete", delete, azure="VirtualNetworks_Delete"),
        route("GET", NETWORK + "/virtualNetworks", "virtualNetworks", "list", list_in_group,
              azure="VirtualNetworks_List"),
        route("GET", "/subscriptions/{sub}/providers/Microsoft.Network/virtualNetworks", "virtualNetworks",
              "list", list_all, azure="VirtualNetworks_ListAll"),
        route("PUT", SUBNET, "subnets", "put", put_subnet, azure="Subnets_CreateOrUpdate"),
        route("GET", SUBNET, "subnets", "get", get_subnet, azure="Subnets_Get"),
        route("DELETE", SUBNET, "subnets", "delete", delete_subnet, azure="Subnets_Delete"),
        route("GET", NETWORK + "/virtualNetworks/{vnet}/subnets", "subnets", "list", list_subnets,
              azure="Subnets_List"),
    ]
