"""Resource Health annotations: what Azure says of a VM beyond its availability, e.g.
`VirtualMachinePossiblyDegradedDueToHardwareFailure` (its host is degrading), `VirtualMachinePreempted`,
`LiveMigrationSucceeded`, each with a context (Platform Initiated, Customer Initiated), a category (Planned,
Unplanned) and an impact.

Rows of Resource Graph's `healthresources` table of type `microsoft.resourcehealth/resourceannotations`, the latest
annotation of each VM (`.../resourceAnnotations/current`). The type and the annotation names are Microsoft's (the
Resource Health docs' VM annotations); the properties' spelling follows the availability statuses' rows
(`targetResourceId`, `occurredTime`, `context`, `summary`) and could not be checked against a published row.
A redeploy moves the VM off a degraded host: its degradation annotation is then cleared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from emulator.arm import arm_ids
from emulator.arm.store import Resource

ANNOTATION_TYPE = "microsoft.resourcehealth/resourceannotations"
DEGRADED = "VirtualMachinePossiblyDegradedDueToHardwareFailure"
KNOWN = {  # name -> (category, impact type, summary)
    DEGRADED: ("Unplanned", "Degraded", "We have detected a hardware degradation on the host of this virtual machine "
                                        "and expect it to fail; it will be moved to another host."),
    "VirtualMachinePreempted": ("Unplanned", "Downtime", "This Spot virtual machine was preempted."),
    "LiveMigrationSucceeded": ("Planned", "Freeze", "This virtual machine was live migrated to another host."),
    "VirtualMachineScheduledRebootForPlannedMaintenance": (
        "Planned", "Reboot", "This virtual machine will be rebooted for planned maintenance."),
}
# What a redeploy (a new host) clears.
CLEARED_BY_REDEPLOY = {DEGRADED}


@dataclass
class Annotation:
    vm_id: str
    name: str
    context: str
    category: str
    impact_type: str
    summary: str
    occurred: str

    def record(self) -> dict[str, Any]:
        return {"targetResourceId": self.vm_id, "annotationName": self.name, "context": self.context,
                "category": self.category, "impactType": self.impact_type, "summary": self.summary,
                "occurredTime": self.occurred}


def row_id(vm_id: str) -> str:
    return f"{vm_id}/providers/Microsoft.ResourceHealth/resourceAnnotations/current"


def graph_row(vm: Resource, annotation: Annotation) -> dict[str, Any]:
    return {
        "id": row_id(vm.id), "name": "current", "type": ANNOTATION_TYPE, "tenantId": "", "kind": "",
        "location": str(vm.body.get("location", "")).replace(" ", "").lower(),
        "resourceGroup": vm.resource_group.lower(), "subscriptionId": vm.subscription, "managedBy": "",
        "sku": None, "plan": None, "tags": {}, "identity": None, "zones": None, "extendedLocation": None,
        "properties": {**annotation.record(), "targetResourceType": "Microsoft.Compute/virtualMachines"},
    }


class Annotations:
    """The current annotation of each VM, by lower-case VM id."""

    def __init__(self) -> None:
        self._current: dict[str, Annotation] = {}

    def set(self, annotation: Annotation) -> None:
        self._current[arm_ids.key(annotation.vm_id)] = annotation

    def of(self, vm: Resource) -> Annotation | None:
        return self._current.get(arm_ids.key(vm.id))

    def clear_on_redeploy(self, vm: Resource) -> bool:
        current = self.of(vm)
        if current is not None and current.name in CLEARED_BY_REDEPLOY:
            del self._current[arm_ids.key(vm.id)]
            return True
        return False

    def forget(self, vm_key: str) -> None:
        self._current.pop(vm_key, None)

    def list(self) -> list[dict[str, Any]]:
        return [a.record() for a in self._current.values()]

    def clear(self) -> None:
        self._current.clear()
