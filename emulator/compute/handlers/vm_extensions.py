"""HTTP: a VM's extensions (`virtual_machine_extensions`)."""

from __future__ import annotations

from aiohttp import web

from emulator.arm.responses import json_response, outcome_response
from emulator.arm.routing import Call, Route, route
from emulator.compute.handlers.virtual_machines import VM

EXTENSIONS = VM + "/extensions"
EXTENSION = EXTENSIONS + "/{extension}"


async def put(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.vm_extensions.put(
        call.scope, call.params["name"], call.params["extension"], call.body))


async def update(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.vm_extensions.update(
        call.scope, call.params["name"], call.params["extension"], call.body))


async def get(call: Call) -> web.StreamResponse:
    return json_response(200, call.backends.vm_extensions.get(
        call.scope, call.params["name"], call.params["extension"], call.query("$expand")))


async def delete(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.vm_extensions.delete(
        call.scope, call.params["name"], call.params["extension"]))


async def list_extensions(call: Call) -> web.StreamResponse:
    # Azure answers one page, without nextLink (VirtualMachineExtensionsListResult).
    return json_response(200, {"value": call.backends.vm_extensions.list(
        call.scope, call.params["name"], call.query("$expand"))})


def routes() -> list[Route]:
    kind = "virtualMachineExtensions"
    return [
        route("PUT", EXTENSION, kind, "put", put, azure="VirtualMachineExtensions_CreateOrUpdate"),
        route("PATCH", EXTENSION, kind, "patch", update, azure="VirtualMachineExtensions_Update"),
        route("GET", EXTENSION, kind, "get", get, azure="VirtualMachineExtensions_Get"),
        route("DELETE", EXTENSION, kind, "delete", delete, azure="VirtualMachineExtensions_Delete"),
        route("GET", EXTENSIONS, kind, "list", list_extensions, azure="VirtualMachineExtensions_List"),
    ]
