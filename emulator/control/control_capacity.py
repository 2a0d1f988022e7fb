"""Control API for capacity and quota: `/_emulator/capacity` and `/_emulator/quota` (see emulator/README.md)."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web
from pydantic import ValidationError

from emulator.arm.routing import read_json
from emulator.compute.allocation.capacity import CapacityRule
from emulator.compute.allocation.vm_allocation import request_for
from emulator.compute.vm_model import VM_TYPE
from emulator.registry import Backends


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")


def _invalid(code: str, exc: Exception) -> web.Response:
    return _json({"error": {"code": code, "message": str(exc)}}, 400)


async def _add(request: web.Request, registry: Any, code: str) -> web.Response:
    body = await read_json(request)
    try:
        entry = registry.add_raw({} if body is None else body)
    except (ValidationError, TypeError) as exc:
        return _invalid(code, exc)
    return _json({"id": entry.id}, 201)


def _remove(registry: Any, entry_id: str | None) -> web.Response:
    if entry_id is None:
        registry.clear()
        return web.Response(status=204)
    return web.Response(status=204 if registry.remove(entry_id) else 404)


async def evict_matching_spot(backends: Backends, rule: CapacityRule) -> list[str]:
    """Evict (by their eviction policy) the running Spot VMs the rule matches that no operation holds."""
    evicted = []
    for vm in backends.state.store.of_type(VM_TYPE):
        wanted = request_for(vm.id, vm.subscription, vm.body)
        busy = backends.state.operations.running_on(vm.id) is not None
        if wanted.spot and vm.extra.get("power") == "running" and not busy and rule.matches(wanted):
            await backends.vm_power.evict(vm.id)
            evicted.append(vm.id)
    return evicted


def add_routes(app: web.Application, backends: Backends) -> None:
    state = backends.state

    async def add_capacity(request: web.Request) -> web.Response:
        body = await read_json(request)
        try:
            entry = state.capacity.add_raw({} if body is None else body)
        except (ValidationError, TypeError) as exc:
            return _invalid("InvalidCapacity", exc)
        evicted = await evict_matching_spot(backends, entry) if entry.evict else []
        return _json({"id": entry.id, "evicted": evicted}, 201)

    async def list_capacity(_: web.Request) -> web.Response:
        return _json(state.capacity.list())

    async def restore_all(_: web.Request) -> web.Response:
        return _remove(state.capacity, None)

    async def restore_one(request: web.Request) -> web.Response:
        return _remove(state.capacity, request.match_info["entry_id"])

    async def add_quota(request: web.Request) -> web.Response:
        return await _add(request, state.quotas, "InvalidQuota")

    async def list_quota(_: web.Request) -> web.Response:
        return _json(state.quotas.list())

    async def clear_quota(_: web.Request) -> web.Response:
        return _remove(state.quotas, None)

    async def remove_quota(request: web.Request) -> web.Response:
        return _remove(state.quotas, request.match_info["entry_id"])

    app.router.add_post("/_emulator/capacity", add_capacity)
    app.router.add_get("/_emulator/capacity", list_capacity)
    app.router.add_delete("/_emulator/capacity", restore_all)
    app.router.add_delete("/_emulator/capacity/{entry_id}", restore_one)
    app.router.add_post("/_emulator/quota", add_quota)
    app.router.add_get("/_emulator/quota", list_quota)
    app.router.add_delete("/_emulator/quota", clear_quota)
    app.router.add_delete("/_emulator/quota/{entry_id}", remove_quota)
