"""Control API for VM guests: guest faults (`/_emulator/guest-faults`) and the probe endpoint through which
the worker's probes reach a VM's guest on the dev stack (`/_emulator/guest/{ip}/...`)."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from emulator.arm.routing import read_json
from emulator.compute.guest import probe
from emulator.compute.guest_faults import parse
from emulator.compute.virtual_machines import VM_TYPE
from emulator.health.resource_health import observe_all
from emulator.registry import Backends


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")


def add_routes(app: web.Application, backends: Backends) -> None:
    state = backends.state

    async def add(request: web.Request) -> web.Response:
        try:
            name, fault, group, persistent = parse(await read_json(request))
        except ValueError as exc:
            return _json({"error": {"code": "InvalidGuestFault", "message": str(exc)}}, 400)
        record = state.guest_faults.add(name, fault, group, state.clock.utc_iso(), state.store.of_type(VM_TYPE),
                                        persistent)
        observe_all(state)  # a host failure moves Resource Health
        return _json(record.record(), 201)

    async def listed(_: web.Request) -> web.Response:
        return _json({"value": state.guest_faults.list()})

    async def clear(_: web.Request) -> web.Response:
        state.guest_faults.clear()
        observe_all(state)
        return web.Response(status=204)

    async def remove(request: web.Request) -> web.Response:
        if state.guest_faults.remove(request.match_info["fault_id"]):
            observe_all(state)
            return web.Response(status=204)
        return _json({"error": {"code": "NotFound",
                                "message": f"No guest fault {request.match_info['fault_id']!r}."}}, 404)

    async def probed(request: web.Request) -> web.Response:
        """A TCP connect or HTTP GET to the guest, answered for it: 200 `{"up": true}` or 503 with why not.
        (The protocol, port and path are checked for shape only: the emulated guest listens everywhere.)"""
        port = request.match_info["port"]
        if not port.isdigit() or not 1 <= int(port) <= 65535:
            return _json({"error": {"code": "InvalidPort", "message": f"port must be 1-65535, not {port!r}"}}, 400)
        reason = probe(state, request.match_info["ip"])
        return _json({"up": True}) if reason is None else _json({"up": False, "reason": reason}, 503)

    app.router.add_get("/_emulator/guest/{ip}/tcp/{port}", probed)
    app.router.add_get("/_emulator/guest/{ip}/http/{port}", probed)
    app.router.add_get("/_emulator/guest/{ip}/http/{port}/{path:.*}", probed)
    app.router.add_post("/_emulator/guest-faults", add)
    app.router.add_get("/_emulator/guest-faults", listed)
    app.router.add_delete("/_emulator/guest-faults", clear)
    app.router.add_delete("/_emulator/guest-faults/{fault_id}", remove)
