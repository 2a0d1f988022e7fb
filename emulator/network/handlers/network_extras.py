"""HTTP: network security groups, application security groups, load balancers, public IP addresses."""

from __future__ import annotations

from aiohttp import web

from emulator.arm.responses import json_response, list_response, outcome_response
from emulator.arm.routing import NETWORK, Call, Handler, Route, route
from emulator.network.network_extras import ASG_TYPE, LB_TYPE, NSG_TYPE, PIP_TYPE


def _handlers(resource_type: str) -> dict[str, Handler]:
    async def put(call: Call) -> web.StreamResponse:
        return outcome_response(call, call.backends.network_extras.put(
            resource_type, call.scope, call.params["name"], call.body))

    async def update_tags(call: Call) -> web.StreamResponse:
        return outcome_response(call, call.backends.network_extras.update_tags(
            resource_type, call.scope, call.params["name"], call.body))

    async def get(call: Call) -> web.StreamResponse:
        return json_response(200, call.backends.network_extras.get(resource_type, call.scope, call.params["name"]))

    async def delete(call: Call) -> web.StreamResponse:
        return outcome_response(call, call.backends.network_extras.delete(
            resource_type, call.scope, call.params["name"]))

    async def list_in_group(call: Call) -> web.StreamResponse:
        return list_response(call, call.backends.network_extras.list(
            resource_type, call.params["sub"], call.params["rg"]))

    async def list_all(call: Call) -> web.StreamResponse:
        return list_response(call, call.backends.network_extras.list(resource_type, call.params["sub"], None))

    return {"put": put, "patch": update_tags, "get": get, "delete": delete, "list_in_group": list_in_group,
            "list_all": list_all}


def _routes_of(resource_type: str) -> list[Route]:
    short = resource_type.split("/", 1)[1]
    one = f"{NETWORK}/{short}/{{name}}"
    handlers = _handlers(resource_type)
    azure = short[0].upper() + short[1:]  # Azure's operation ids: `LoadBalancers_Get`, `PublicIPAddresses_List`, ...
    return [
        route("PUT", one, short, "put", handlers["put"], azure=f"{azure}_CreateOrUpdate"),
        route("PATCH", one, short, "patch", handlers["patch"], azure=f"{azure}_UpdateTags"),
        route("GET", one, short, "get", handlers["get"], azure=f"{azure}_Get"),
        route("DELETE", one, short, "delete", handlers["delete"], azure=f"{azure}_Delete"),
        route("GET", f"{NETWORK}/{short}", short, "list", handlers["list_in_group"], azure=f"{azure}_List"),
        route("GET", f"/subscriptions/{{sub}}/providers/Microsoft.Network/{short}", short, "list",
              handlers["list_all"], azure=f"{azure}_ListAll"),
    ]


def routes() -> list[Route]:
    return [r for resource_type in (NSG_TYPE, ASG_TYPE, LB_TYPE, PIP_TYPE) for r in _routes_of(resource_type)]
