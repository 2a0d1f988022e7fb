"""Control API for what Azure announces: scheduled events (`/_emulator/scheduled-events`), a degrading host
(`/_emulator/degrade-host`) and Resource Health annotations (`/_emulator/annotations`)."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from emulator.arm.routing import read_json
from emulator.arm.store import Resource
from emulator.compute.allocation.capacity import SPOT_PRIORITIES
from emulator.compute.scheduled_events import DEFAULT_NOTICE_S, EVENT_TYPES
from emulator.compute.virtual_machines import VM_TYPE
from emulator.health import vm_annotations
from emulator.health.resource_health import observe
from emulator.registry import Backends

_EVENT_FIELDS = {"name", "resource_group", "event_type", "not_before_seconds", "duration_seconds", "description",
                 "self_service_start_seconds", "self_service_end_seconds"}
_ANNOTATION_FIELDS = {"name", "resource_group", "annotation", "context", "summary"}


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")


def _refused(code: str, message: str, status: int = 400) -> web.Response:
    return _json({"error": {"code": code, "message": message}}, status)


def _fields(body: Any, known: set[str]) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ValueError("the body must be a JSON object with 'name'")
    unknown = sorted(set(body) - known)
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}; known: {', '.join(sorted(known))}")
    return body


def _number(body: dict[str, Any], field: str) -> float | None:
    value = body.get(field)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value < 0):
        raise ValueError(f"'{field}' must be a number of seconds >= 0 when given")
    return value


def _self_service(body: dict[str, Any], event_type: str, notice: float | None) -> tuple[float, float] | None:
    """A Redeploy's self-service window (Azure's preMaintenanceWindow), in seconds from now: both ends or none, within
    the notice (the owner's window closes before Azure's maintenance starts)."""
    start, end = _number(body, "self_service_start_seconds"), _number(body, "self_service_end_seconds")
    if start is None and end is None:
        return None
    if start is None or end is None or event_type != "Redeploy":
        raise ValueError("'self_service_start_seconds' and 'self_service_end_seconds' go together, on a Redeploy")
    deadline = DEFAULT_NOTICE_S[event_type] if notice is None else notice
    if not start < end <= deadline:
        raise ValueError(f"the self-service window must end after it starts and by the deadline ({deadline:g} s)")
    return start, end


def find_vm(backends: Backends, body: dict[str, Any]) -> Resource:
    """The VM a body names (`name`, optionally `resource_group`); ValueError when there is none."""
    name, group = body.get("name"), body.get("resource_group")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("'name' must be a VM's name (a non-empty string)")
    if group is not None and (not isinstance(group, str) or not group.strip()):
        raise ValueError("'resource_group' must be a non-empty string when given")
    for vm in backends.state.store.of_type(VM_TYPE):
        if vm.name.lower() == name.lower() and (group is None or vm.resource_group.lower() == group.lower()):
            return vm
    raise LookupError(f"no VM named {name!r}" + (f" in resource group {group!r}" if group else ""))


def add_routes(app: web.Application, backends: Backends) -> None:
    state = backends.state
    maintenance = backends.vm_maintenance

    async def schedule(request: web.Request) -> web.Response:
        try:
            body = _fields(await read_json(request), _EVENT_FIELDS)
            event_type = body.get("event_type")
            if event_type not in EVENT_TYPES:
                raise ValueError(f"'event_type' must be one of {', '.join(EVENT_TYPES)}")
            notice, duration = _number(body, "not_before_seconds"), _number(body, "duration_seconds")
            description = body.get("description") or ""
            if not isinstance(description, str):
                raise ValueError("'description' must be a string")
            window = _self_service(body, event_type, notice)
            vm = find_vm(backends, body)
            priority = str(vm.properties.get("priority") or "Regular").lower()
            if event_type == "Preempt" and priority not in SPOT_PRIORITIES:
                raise ValueError(f"only a Spot VM is preempted; {vm.name} has priority {priority}")
        except LookupError as exc:
            return _refused("ResourceNotFound", str(exc), 404)
        except ValueError as exc:
            return _refused("InvalidScheduledEvent", str(exc))
        event = maintenance.schedule(vm, event_type, notice, None if duration is None else int(duration), description,
                                     window)
        return _json(event.record(), 201)

    async def move(request: web.Request) -> web.Response:
        event = state.scheduled_events.get(request.match_info["event_id"])
        if event is None:
            return _refused("NotFound", f"No scheduled event {request.match_info['event_id']!r}.", 404)
        if request.match_info["step"] == "start":
            await maintenance.start(event)
        else:
            maintenance.complete(event)
        return _json(event.record())

    async def degrade(request: web.Request) -> web.Response:
        try:
            body = _fields(await read_json(request), {"name", "resource_group", "not_before_seconds"})
            notice = _number(body, "not_before_seconds")
            vm = find_vm(backends, body)
        except LookupError as exc:
            return _refused("ResourceNotFound", str(exc), 404)
        except ValueError as exc:
            return _refused("InvalidHostDegradation", str(exc))
        annotation, event = maintenance.degrade_host(vm, notice)
        return _json({"annotation": annotation.record(), "scheduled_event": event.record()}, 201)

    async def annotate(request: web.Request) -> web.Response:
        try:
            body = _fields(await read_json(request), _ANNOTATION_FIELDS)
            name = body.get("annotation")
            if name not in vm_annotations.KNOWN:
                raise ValueError(f"'annotation' must be one of {', '.join(sorted(vm_annotations.KNOWN))}")
            vm = find_vm(backends, body)
        except LookupError as exc:
            return _refused("ResourceNotFound", str(exc), 404)
        except ValueError as exc:
            return _refused("InvalidAnnotation", str(exc))
        category, impact, summary = vm_annotations.KNOWN[name]
        annotation = vm_annotations.Annotation(vm.id, name, str(body.get("context") or "Platform Initiated"), category,
                                            impact, str(body.get("summary") or summary), state.clock.utc_iso())
        state.annotations.set(annotation)
        state.publish_foresight(vm)
        observe(vm, state)
        return _json(annotation.record(), 201)

    async def listed(_: web.Request) -> web.Response:
        return _json({"value": state.scheduled_events.list()})

    async def annotations_listed(_: web.Request) -> web.Response:
        return _json({"value": state.annotations.list()})

    app.router.add_post("/_emulator/scheduled-events", schedule)
    app.router.add_get("/_emulator/scheduled-events", listed)
    app.router.add_post("/_emulator/scheduled-events/{event_id}/{step:start|complete}", move)
    app.router.add_post("/_emulator/degrade-host", degrade)
    app.router.add_post("/_emulator/annotations", annotate)
    app.router.add_get("/_emulator/annotations", annotations_listed)
