"""Resource Graph's view of the store: rows in the graph's shape (tables `resources` and `healthresources`),
visible only after the index lag."""

from __future__ import annotations

import copy
from typing import Any

from emulator.arm.clock import Clock
from emulator.arm.store import Resource
from emulator.compute.power_text import POWER_TEXT
from emulator.seed import SEED_TENANT
from emulator.settings import LiveSettings

# The `Resources` table holds tracked top-level resources; groups live in ResourceContainers and
# subnets inside their vnet, so neither appears as a row.
_GRAPH_TYPES = {
    "microsoft.network/virtualnetworks",
    "microsoft.network/networkinterfaces",
    "microsoft.network/publicipaddresses",
    "microsoft.network/networksecuritygroups",
    "microsoft.network/applicationsecuritygroups",
    "microsoft.network/loadbalancers",
    "microsoft.compute/virtualmachines",
    "microsoft.compute/disks",
}


def _properties(resource: Resource) -> dict[str, Any]:
    """A VM's row carries its power state (`properties.extended.instanceView.powerState`), as Azure's
    graph does: a fleet can be watched for stopped or deallocated VMs without one GET per VM."""
    properties = dict(resource.body.get("properties", {}))
    power = resource.extra.get("power")
    if resource.type.lower() == "microsoft.compute/virtualmachines" and power:
        properties["extended"] = {"instanceView": {"powerState": {
            "code": f"PowerState/{power}", "level": "Info", "displayStatus": POWER_TEXT[power]}}}
    return properties


def graph_row(resource: Resource) -> dict[str, Any]:
    body = resource.body
    return {
        "id": body["id"],
        "name": body["name"],
        "type": resource.type.lower(),
        "tenantId": SEED_TENANT,
        "kind": body.get("kind", ""),
        # The graph normalizes display names ("West US") to location names ("westus").
        "location": str(body.get("location", "")).replace(" ", "").lower(),
        "resourceGroup": resource.resource_group.lower(),
        "subscriptionId": resource.subscription,
        "managedBy": body.get("managedBy", ""),
        "sku": body.get("sku"),
        "plan": body.get("plan"),
        "properties": _properties(resource),
        "tags": body.get("tags") or {},
        "zones": body.get("zones"),
        "identity": body.get("identity"),
        "extendedLocation": body.get("extendedLocation"),
    }


class GraphIndex:
    """Keeps (time, row-or-None) per resource; a query sees each resource as it was `lag` ago."""

    def __init__(self, clock: Clock, settings: LiveSettings) -> None:
        self._clock = clock
        self._settings = settings
        self._history: dict[str, list[tuple[float, dict[str, Any] | None]]] = {}
        self._tables: dict[str, str] = {}  # key -> the table its rows belong to

    def record(self, key: str, resource: Resource | None) -> None:
        if resource is not None and resource.type.lower() not in _GRAPH_TYPES:
            return
        self.record_row("resources", key, graph_row(resource) if resource is not None else None)

    def record_row(self, table: str, key: str, row: dict[str, Any] | None) -> None:
        """A row of `table` ("resources", "healthresources") changed; None: it is gone."""
        if row is None and key not in self._history:
            return
        # Rows are copied at change time: a query must not see later in-place edits early.
        entries = self._history.setdefault(key, [])
        self._tables[key] = table
        entries.append((self._clock.now(), copy.deepcopy(row)))
        self._compact(key, entries, self._cutoff())

    def rows(self, table: str = "resources") -> list[dict[str, Any]]:
        cutoff = self._cutoff()
        out: list[dict[str, Any]] = []
        for key, entries in list(self._history.items()):
            if self._tables.get(key) != table:
                continue
            self._compact(key, entries, cutoff)
            visible = [row for at, row in entries if at <= cutoff]
            if visible and visible[-1] is not None:
                out.append(visible[-1])
        return out

    def _cutoff(self) -> float:
        return self._clock.now() - self._clock.scaled(self._settings.index_lag_s)

    def _compact(self, key: str, entries: list[tuple[float, dict[str, Any] | None]], cutoff: float) -> None:
        """Drop entries hidden behind a newer visible one; forget resources whose deletion is visible."""
        visible = sum(1 for at, _ in entries if at <= cutoff)
        if visible > 1:
            del entries[: visible - 1]
        if len(entries) == 1 and entries[0][1] is None and entries[0][0] <= cutoff:
            del self._history[key]
            self._tables.pop(key, None)

    def clear(self) -> None:
        self._history.clear()
        self._tables.clear()
