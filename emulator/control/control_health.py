"""Control API: force a VM's Resource Health state (`/_emulator/resource-health`), e.g. many VMs Unavailable
at once for a region-wide outage, which the emulator does not otherwise model."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from emulator.arm.routing import read_json
from emulator.health.resource_health import AVAILABILITY_STATES, Forced, observe_all
from emulator.registry import Backends

_FIELDS = {"name", "names", "resource_group", "availability_state", "context", "summary"}
_DEFAULT_SUMMARY = {
    "Available": "Vm is available",
    "Unknown": "We are currently unable to determine the health of this virtual machine.",
}
_OUTAGE = "An Azure service issue is making this virtual machine unavailable."


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")


def parse(body: Any) -> list[Forced]:
    """The states a POST body forces; ValueError names the field that is wrong."""
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object with 'name' (or 'names') and 'availability_state'")
    unknown = sorted(set(body) - _FIELDS)
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}; known: {', '.join(sorted(_FIELDS))}")
    names = body.get("names") if "names" in body else [body.get("name")]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n.strip() for n in names):
        raise ValueError("'name' must be a VM's name, or 'names' a non-empty list of them")
    state = body.get("availability_state")
    if state not in AVAILABILITY_STATES:
        raise ValueError(f"'availability_state' must be one of {', '.join(AVAILABILITY_STATES)}")
    texts = {}
    for field in ("resource_group", "context", "summary"):
        value = body.get(field)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ValueError(f"'{field}' must be a non-empty string when given")
        texts[field] = value
    summary = texts["summary"] or _DEFAULT_SUMMARY.get(state, _OUTAGE)
    return [Forced(name, texts["resource_group"], state, texts["context"] or "Platform Initiated", summary)
            for name in names]


def add_routes(app: web.Application, backends: Backends) -> None:
    state = backends.state

    async def force(request: web.Request) -> web.Response:
        try:
            forced = parse(await read_json(request))
        except ValueError as exc:
            return _json({"error": {"code": "InvalidResourceHealth", "message": str(exc)}}, 400)
        state.forced_health.extend(forced)
        observe_all(state)
        return _json({"value": [f.record() for f in forced]}, 201)

    async def listed(_: web.Request) -> web.Response:
        return _json({"value": [f.record() for f in state.forced_health]})

    async def clear(_: web.Request) -> web.Response:
        state.forced_health.clear()
        observe_all(state)
        return web.Response(status=204)

    app.router.add_post("/_emulator/resource-health", force)
    app.router.add_get("/_emulator/resource-health", listed)
    app.router.add_delete("/_emulator/resource-health", clear)
