"""The control API under `/_emulator/`: faults, resources, request counts, settings, reset, health."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web
from pydantic import ValidationError

from emulator.arm import arm_ids
from emulator.arm.arm_ids import Scope
from emulator.arm.errors import ArmError
from emulator.arm.routing import read_json
from emulator.arm.store import Resource
from emulator.compute.allocation.capacity import priority_of
from emulator.compute.virtual_machines import VM_TYPE
from emulator.compute.vm_bootstrap import bootstrap_digests
from emulator.compute.vm_features import vm_features_view
from emulator.registry import Backends
from emulator.seeding import seed

BACKENDS = web.AppKey("backends", Backends)


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")


async def _body(request: web.Request) -> Any:
    """The JSON body ({} for none) under the same limits as ARM requests; raises ArmError."""
    parsed = await read_json(request)
    return {} if parsed is None else parsed


def _error(error: ArmError) -> web.Response:
    return _json(error.body(), error.status)


def describe(resource: Resource, backends: Backends) -> dict[str, Any]:
    """A flat view of a resource for tests and operators."""
    props = resource.properties
    attachments: dict[str, Any] = {}
    if "virtualMachine" in props:
        attachments["virtualMachine"] = props["virtualMachine"]["id"]
    if resource.body.get("managedBy"):
        attachments["managedBy"] = resource.body["managedBy"]
    if resource.type.lower() == "microsoft.compute/virtualmachines":
        attachments["networkInterfaces"] = [n["id"] for n in props["networkProfile"]["networkInterfaces"]]
        storage = props.get("storageProfile", {})
        disks = ([storage["osDisk"]] if storage.get("osDisk") else []) + storage.get("dataDisks", [])
        attachments["disks"] = [d["managedDisk"]["id"] for d in disks]
    out = {
        "type": resource.type,
        "id": resource.id,
        "name": resource.name,
        "resourceGroup": resource.resource_group,
        "provisioningState": resource.provisioning_state,
        "tags": resource.body.get("tags") or {},
        "attachments": attachments,
    }
    if "diskState" in props:
        out["diskState"] = props["diskState"]
        out["uniqueId"] = props.get("uniqueId")
    if resource.type == VM_TYPE:
        out["powerState"] = resource.extra.get("power")
        out["vmSize"] = (props.get("hardwareProfile") or {}).get("vmSize")
        out["zones"] = resource.body.get("zones") or []
        out["priority"] = priority_of(props)
        out["host"] = resource.extra.get("host")
        out["vmId"] = props.get("vmId")
        out.update(vm_features_view(resource))
        out.update(bootstrap_digests(resource))
    if resource.type.lower() == "microsoft.network/networkinterfaces":
        held = backends.nics.reservation(resource)
        if held is not None:
            out["reservedFor"] = {"vm": held[0], "remaining_s": round(held[1], 3)}
    running = backends.state.operations.running_on(resource.id)
    if running is not None:
        out["runningOperation"] = running.name
    return out


async def add_fault(request: web.Request) -> web.Response:
    state = request.app[BACKENDS].state
    try:
        fault = state.faults.add_raw(await _body(request))
    except (ValidationError, TypeError) as exc:
        return _json({"error": {"code": "InvalidFault", "message": str(exc)}}, 400)
    return _json({"id": fault.id}, 201)


async def list_faults(request: web.Request) -> web.Response:
    return _json(request.app[BACKENDS].state.faults.list())


async def delete_fault(request: web.Request) -> web.Response:
    found = request.app[BACKENDS].state.faults.remove(request.match_info["fault_id"])
    return web.Response(status=204 if found else 404)


async def clear_faults(request: web.Request) -> web.Response:
    request.app[BACKENDS].state.faults.clear()
    return web.Response(status=204)


async def resources(request: web.Request) -> web.Response:
    backends = request.app[BACKENDS]
    wanted = request.query.get("type", "").lower()
    found = [describe(r, backends) for r in backends.state.store.all() if wanted in r.type.lower()]
    found.sort(key=lambda r: arm_ids.key(r["id"]))
    return _json(found)


async def requests(request: web.Request) -> web.Response:
    state = request.app[BACKENDS].state
    counts = state.request_counts
    return _json({"total": sum(counts.values()), "by_operation": dict(counts),
                  "failed_by_operation": dict(state.failed_counts),
                  "throttled_by_operation": dict(state.throttled_counts),
                  "vm_deletions": [deletion.record() for deletion in state.vm_deletions]})


async def get_settings(request: web.Request) -> web.Response:
    return _json(request.app[BACKENDS].state.settings.as_dict())


async def post_settings(request: web.Request) -> web.Response:
    state = request.app[BACKENDS].state
    try:
        changes = await _body(request)
        state.settings.update(changes)
    except (ValueError, TypeError) as exc:
        return _json({"error": {"code": "InvalidSetting", "message": str(exc)}}, 400)
    if "limits" in changes or "limits_overrides" in changes:  # a new profile or budget starts full
        state.limits.configure(state.settings.limits_overrides)
    return _json(state.settings.as_dict())


async def evict(request: web.Request) -> web.Response:
    """Evict a Spot VM by its eviction policy: `{"id"}` or `{"resourceGroup", "name"[, "subscription"]}`."""
    backends = request.app[BACKENDS]
    body = await _body(request)
    if not isinstance(body, dict):
        raise ArmError(400, "InvalidRequestContent", "The body must be a JSON object.")
    vm_id = body.get("id")
    if not vm_id and body.get("resourceGroup") and body.get("name"):
        subscription = str(body.get("subscription") or backends.state.config.subscription)
        vm_id = Scope(subscription, str(body["resourceGroup"])).resource_id(VM_TYPE, str(body["name"]))
    if not isinstance(vm_id, str) or not vm_id:
        raise ArmError(400, "InvalidRequestContent", "Give the VM's 'id', or its 'resourceGroup' and 'name'.")
    return _json(await backends.vm_power.evict(vm_id))


async def reset(request: web.Request) -> web.Response:
    backends = request.app[BACKENDS]
    await backends.state.reset()
    if backends.state.config.seed:
        seed(backends)
    return _json({"status": "reset"})


async def health(request: web.Request) -> web.Response:
    state = request.app[BACKENDS].state
    return _json({"status": "ok", "resources": len(state.store.all()), "settings": state.settings.as_dict()})


@web.middleware
async def control_errors(request: web.Request, handler: Any) -> web.StreamResponse:
    """A control-API request the emulator refuses answers in ARM's error shape, never 500 or plain text."""
    try:
        return await handler(request)
    except ArmError as error:
        return _error(error)


def add_routes(app: web.Application) -> None:
    app.router.add_post("/_emulator/faults", add_fault)
    app.router.add_get("/_emulator/faults", list_faults)
    app.router.add_delete("/_emulator/faults", clear_faults)
    app.router.add_delete("/_emulator/faults/{fault_id}", delete_fault)
    app.router.add_get("/_emulator/resources", resources)
    app.router.add_get("/_emulator/requests", requests)
    app.router.add_get("/_emulator/settings", get_settings)
    app.router.add_post("/_emulator/settings", post_settings)
    app.router.add_post("/_emulator/evict", evict)
    app.router.add_post("/_emulator/reset", reset)
    app.router.add_get("/_emulator/health", health)
