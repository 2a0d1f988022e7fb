"""HTTP: /subscriptions/{sub}/resourceGroups[/{rg}]."""

from __future__ import annotations

from aiohttp import web

from emulator.arm.outcome import Outcome
from emulator.arm.responses import json_response, list_response, outcome_response
from emulator.arm.routing import RG, Call, Route, route


async def put(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.groups.put(call.params["sub"], call.params["rg"], call.body))


async def get(call: Call) -> web.StreamResponse:
    if call.request.method == "HEAD":
        exists = call.backends.groups.exists(call.params["sub"], call.params["rg"])
        return json_response(204 if exists else 404)
    return outcome_response(call, call.backends.groups.get(call.params["sub"], call.params["rg"]))


async def delete(call: Call) -> web.StreamResponse:
    outcome: Outcome = call.backends.groups.delete(call.params["sub"], call.params["rg"])
    return outcome_response(call, outcome)


async def list_groups(call: Call) -> web.StreamResponse:
    return list_response(call, call.backends.groups.list(call.params["sub"]))


def routes() -> list[Route]:
    return [
        route("PUT", RG, "resourceGroups", "put", put, azure="ResourceGroups_CreateOrUpdate"),
        route("GET", RG, "resourceGroups", "get", get, azure="ResourceGroups_Get"),
        route("DELETE", RG, "resourceGroups", "delete", delete, azure="ResourceGroups_Delete"),
        route("GET", "/subscriptions/{sub}/resourceGroups", "resourceGroups", "list", list_groups,
              azure="ResourceGroups_List"),
    ]
