"""HTTP: virtual machines, their instance view, power operations, restart and redeploy."""

from __future__ import annotations

from aiohttp import web

from emulator.arm.responses import json_response, list_response, outcome_response
from emulator.arm.routing import COMPUTE, Call, Handler, Route, route
from emulator.arm.rules.conditions import check_conditions
from emulator.compute.virtual_machines import VM_TYPE
from emulator.compute.vm_repair import REPAIRS

VM = COMPUTE + "/virtualMachines/{name}"
_SUB_COMPUTE = "/subscriptions/{sub}/providers/Microsoft.Compute"


def _conditions_hold(call: Call) -> None:
    """If-None-Match / If-Match against the VM as it is now (emulator/arm/rules/conditions.py)."""
    stored = call.backends.state.store.get(call.scope.resource_id(VM_TYPE, call.params["name"]))
    check_conditions(call.request.headers, stored.body if stored is not None else None)


async def put(call: Call) -> web.StreamResponse:
    _conditions_hold(call)
    return outcome_response(call, call.backends.vms.put(call.scope, call.params["name"], call.body))


async def patch(call: Call) -> web.StreamResponse:
    _conditions_hold(call)
    return outcome_response(call, call.backends.vms.patch(call.scope, call.params["name"], call.body))


async def get(call: Call) -> web.StreamResponse:
    return json_response(200, call.backends.vms.get(call.scope, call.params["name"], call.query("$expand")))


async def instance_view(call: Call) -> web.StreamResponse:
    return json_response(200, call.backends.vms.get_instance_view(call.scope, call.params["name"]))


async def delete(call: Call) -> web.StreamResponse:
    return outcome_response(call, call.backends.vms.delete(call.scope, call.params["name"],
                                                           call.query("forceDeletion")))


async def list_in_group(call: Call) -> web.StreamResponse:
    return list_response(call, call.backends.vms.list(call.params["sub"], call.params["rg"]))


async def list_all(call: Call) -> web.StreamResponse:
    """`statusOnly=true`: every VM's run-time status alone (what azmc's shared status reads ask for)."""
    if (call.query("statusOnly") or "").lower() == "true":
        vms = call.backends.vms
        return list_response(call, vms.listed_for_statuses(call.params["sub"]), vms.status_of)
    return list_response(call, call.backends.vms.list(call.params["sub"], None))


async def list_by_location(call: Call) -> web.StreamResponse:
    return list_response(call, call.backends.vms.list(call.params["sub"], None, call.params["location"]))


def _power(verb: str) -> Handler:
    async def handler(call: Call) -> web.StreamResponse:
        return outcome_response(call, call.backends.vm_power.power(call.scope, call.params["name"], verb))

    return handler


def _repair(verb: str) -> Handler:
    async def handler(call: Call) -> web.StreamResponse:
        return outcome_response(call, call.backends.vm_repair.repair(call.scope, call.params["name"], verb))

    return handler


def routes() -> list[Route]:
    return [
        route("PUT", VM, "virtualMachines", "put", put, azure="VirtualMachines_CreateOrUpdate"),
        route("PATCH", VM, "virtualMachines", "patch", patch, azure="VirtualMachines_Update"),
        route("GET", VM, "virtualMachines", "get", get, azure="VirtualMachines_Get"),
        route("GET", VM + "/instanceView", "virtualMachines", "instanceView", instance_view,
              azure="VirtualMachines_InstanceView"),
        route("DELETE", VM, "virtualMachines", "delete", delete, azure="VirtualMachines_Delete"),
        route("GET", COMPUTE + "/virtualMachines", "virtualMachines", "list", list_in_group,
              azure="VirtualMachines_List"),
        route("GET", _SUB_COMPUTE + "/virtualMachines", "virtualMachines", "list", list_all,
              azure="VirtualMachines_ListAll"),
        route("GET", _SUB_COMPUTE + "/locations/{location}/virtualMachines", "virtualMachines", "list",
              list_by_location, azure="VirtualMachines_ListByLocation"),
        *[route("POST", f"{VM}/{verb}", "virtualMachines", verb, _power(verb),
                azure=f"VirtualMachines_{verb[0].upper()}{verb[1:]}")
          for verb in ("powerOff", "deallocate", "start")],
        *[route("POST", f"{VM}/{verb}", "virtualMachines", verb, _repair(verb),
                azure=f"VirtualMachines_{verb[0].upper()}{verb[1:]}") for verb in REPAIRS],
    ]
