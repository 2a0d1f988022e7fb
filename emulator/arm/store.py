"""All resources by id, plus the change history Resource Graph reads with its index lag."""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from emulator.arm import arm_ids


@dataclass
class Resource:
    """One ARM resource. `body` is exactly what GET answers (id, name, type, location, properties...)."""

    type: str  # canonical, e.g. "Microsoft.Network/networkInterfaces"
    subscription: str
    resource_group: str
    body: dict[str, Any]
    # Emulator-only bookkeeping (never sent to clients), e.g. NIC reservations.
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.body["id"]

    @property
    def name(self) -> str:
        return self.body["name"]

    @property
    def properties(self) -> dict[str, Any]:
        return self.body.setdefault("properties", {})

    @property
    def provisioning_state(self) -> str | None:
        return self.properties.get("provisioningState")


class ResourceStore:
    """Resources keyed by lower-case id. Every change is reported to `on_change` (the graph index)."""

    def __init__(self, on_change: Callable[[str, Resource | None], None]) -> None:
        self._by_key: dict[str, Resource] = {}
        self._on_change = on_change

    def get(self, resource_id: str) -> Resource | None:
        return self._by_key.get(arm_ids.key(resource_id))

    def put(self, resource: Resource) -> Resource:
        self._by_key[arm_ids.key(resource.id)] = resource
        self.changed(resource)
        return resource

    def changed(self, resource: Resource) -> None:
        """Call after mutating a stored resource in place."""
        self._on_change(arm_ids.key(resource.id), resource)

    def delete(self, resource_id: str) -> Resource | None:
        gone = self._by_key.pop(arm_ids.key(resource_id), None)
        if gone is not None:
            self._on_change(arm_ids.key(resource_id), None)
        return gone

    def all(self) -> list[Resource]:
        return list(self._by_key.values())

    def of_type(
        self, type_name: str, subscription: str | None = None, resource_group: str | None = None
    ) -> list[Resource]:
        wanted = type_name.lower()
        return [
            r
            for r in self._by_key.values()
            if r.type.lower() == wanted
            and (subscription is None or r.subscription.lower() == subscription.lower())
            and (resource_group is None or r.resource_group.lower() == resource_group.lower())
        ]

    def in_group(self, subscription: str, resource_group: str) -> list[Resource]:
        prefix = f"/subscriptions/{subscription}/resourcegroups/{resource_group}/".lower()
        return [r for k, r in self._by_key.items() if k.startswith(prefix)]

    def clear(self) -> None:
        for key in list(self._by_key):
            self._by_key.pop(key)
            self._on_change(key, None)


def snapshot(resource: Resource) -> dict[str, Any]:
    return copy.deepcopy(resource.body)
