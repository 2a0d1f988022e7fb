"""Rules every resource type shares: group must exist, 404 shapes, one operation at a time."""

from __future__ import annotations

import uuid
from typing import Any

from emulator.arm import errors
from emulator.arm.arm_ids import Scope
from emulator.arm.faults import Fault
from emulator.arm.latency import duration
from emulator.arm.operations import OnFailure, Operation, Work
from emulator.arm.store import Resource
from emulator.state import EmulatorState

GROUP_TYPE = "Microsoft.Resources/resourceGroups"


def group_id(subscription: str, resource_group: str) -> str:
    return f"/subscriptions/{subscription}/resourceGroups/{resource_group}"


def require_group(state: EmulatorState, scope: Scope) -> Scope:
    """The group must exist; returns the scope with the group's stored casing (Azure keeps it)."""
    group = state.store.get(group_id(scope.subscription, scope.resource_group))
    if group is None:
        raise errors.resource_group_not_found(scope.resource_group)
    return Scope(scope.subscription, group.name)


def get_existing(state: EmulatorState, scope: Scope, provider_type: str, name: str) -> Resource:
    scope = require_group(state, scope)
    resource = state.store.get(scope.resource_id(provider_type, name))
    if resource is None:
        raise errors.resource_not_found(provider_type, name, scope.resource_group)
    return resource


def listed(state: EmulatorState, provider_type: str, subscription: str,
           resource_group: str | None) -> list[Resource]:
    """A list call's resources: the subscription's, or the group's (the group must exist)."""
    if resource_group is not None:
        require_group(state, Scope(subscription, resource_group))
    return state.store.of_type(provider_type, subscription, resource_group)


def deletable(state: EmulatorState, scope: Scope, provider_type: str, name: str) -> Resource | None:
    """What a DELETE addresses: None when it does not exist (ARM answers 204). A missing group is 404,
    a running operation 409."""
    scope = require_group(state, scope)
    resource = state.store.get(scope.resource_id(provider_type, name))
    if resource is not None:
        ensure_idle(state, resource.id)
    return resource


def ensure_idle(state: EmulatorState, resource_id: str) -> None:
    running = state.operations.running_on(resource_id)
    if running is not None:
        raise errors.another_operation_in_progress(resource_id, running.path())


def prepare_put(
    state: EmulatorState, scope: Scope, provider_type: str, name: str
) -> tuple[Scope, str, Resource | None]:
    """What every PUT checks first: the group exists, no operation runs on the resource.

    Returns the scope with the group's stored casing, the resource id and the resource if it exists.
    """
    scope = require_group(state, scope)
    rid = scope.resource_id(provider_type, name)
    ensure_idle(state, rid)
    return scope, rid, state.store.get(rid)


def operation_fault(state: EmulatorState, operation: str, name: str) -> Fault | None:
    return state.faults.take(operation, name, "operation")


def start_operation(state: EmulatorState, resource: Resource, op_name: str, work: Work,
                    on_failure: OnFailure | None = None, location: str | None = None,
                    late: Work | None = None, timing: str | None = None) -> Operation:
    """The long-running operation `op_name` ("<resourceType>.<verb>") on `resource`: it locks the resource,
    takes the profile's Azure duration and any operation-stage fault aimed at it, then runs `work`; `late`:
    how the resource finishes after all when a fault with `late_success_s` failed the operation; `timing`: the
    latency entry when it is not `op_name`'s (a forced VM delete is still a `virtualMachines.delete`)."""
    return state.operations.start(
        name=op_name,
        namespace=resource.type.split("/", 1)[0],
        subscription=resource.subscription,
        location=location or resource.body.get("location", "global"),
        locks=[resource.id],
        azure_seconds=duration(state.settings.latency_profile, timing or op_name),
        work=work,
        on_failure=on_failure,
        fault=operation_fault(state, op_name, resource.name),
        late=late,
    )


def etag() -> str:
    return f'W/"{uuid.uuid4()}"'


def base_body(resource_id: str, name: str, type_name: str, request: dict[str, Any],
              location: str | None = None) -> dict[str, Any]:
    """Top-level fields ARM echoes from a PUT body; the location given, else the request's (required)."""
    body: dict[str, Any] = {"id": resource_id, "name": name, "type": type_name}
    for top in ("tags", "zones", "sku", "plan", "identity", "extendedLocation", "kind"):
        if top in request and request[top] is not None:
            body[top] = request[top]
    body["location"] = location or require_location(request)
    return body


def require_location(request: dict[str, Any]) -> str:
    location = request.get("location")
    if not location:
        raise errors.invalid("The 'location' property is required for this definition.",
                             code="LocationRequired")
    return str(location)
