"""Resource groups: synchronous PUT/GET, long-running DELETE that removes everything inside."""

from __future__ import annotations

from typing import Any

from emulator.arm import errors
from emulator.arm.arm_ids import Scope
from emulator.arm.common import GROUP_TYPE, ensure_idle, group_id, require_location, start_operation
from emulator.arm.outcome import Outcome
from emulator.arm.store import Resource
from emulator.state import EmulatorState


class ResourceGroupsBackend:
    def __init__(self, state: EmulatorState) -> None:
        self.state = state

    def put(self, subscription: str, name: str, request: dict[str, Any]) -> Outcome:
        rid = group_id(subscription, name)
        existing = self.state.store.get(rid)
        if existing is not None:
            ensure_idle(self.state, rid)
            if request.get("location", existing.body["location"]).lower() != existing.body["location"].lower():
                raise errors.invalid(
                    f"Invalid resource group location '{request['location']}'. The Resource group already "
                    f"exists in location '{existing.body['location']}'.",
                    code="InvalidResourceGroupLocation",
                )
            if "tags" in request:
                existing.body["tags"] = request["tags"] or {}
            self.state.store.changed(existing)
            return Outcome(200, existing.body)
        body: dict[str, Any] = {
            "id": rid,
            "name": name,
            "type": GROUP_TYPE,
            "location": require_location(request),
            "properties": {"provisioningState": "Succeeded"},
        }
        if request.get("tags"):
            body["tags"] = request["tags"]
        if request.get("managedBy"):
            body["managedBy"] = request["managedBy"]
        self.state.store.put(Resource(GROUP_TYPE, subscription, name, body))
        return Outcome(201, body)

    def get(self, subscription: str, name: str) -> Outcome:
        group = self.state.store.get(group_id(subscription, name))
        if group is None:
            raise errors.resource_group_not_found(name)
        return Outcome(200, group.body)

    def list(self, subscription: str) -> list[dict[str, Any]]:
        return [g.body for g in self.state.store.of_type(GROUP_TYPE, subscription)]

    def delete(self, subscription: str, name: str) -> Outcome:
        rid = group_id(subscription, name)
        group = self.state.store.get(rid)
        if group is None:
            raise errors.resource_group_not_found(name)
        ensure_idle(self.state, rid)
        group.properties["provisioningState"] = "Deleting"
        store = self.state.store

        async def remove_everything() -> None:
            for resource in store.in_group(subscription, group.name):
                store.delete(resource.id)
            store.delete(rid)

        def failed(_: errors.ArmError) -> None:
            group.properties["provisioningState"] = "Succeeded"

        op = start_operation(self.state, group, "resourceGroups.delete", remove_everything, failed)
        return Outcome(202, None, op)

    def exists(self, subscription: str, name: str) -> bool:
        return self.state.store.get(group_id(subscription, name)) is not None

    def ensure(self, scope: Scope, location: str) -> None:
        """Create the group if missing (the seed uses this)."""
        if not self.exists(scope.subscription, scope.resource_group):
            self.put(scope.subscription, scope.resource_group, {"location": location})
