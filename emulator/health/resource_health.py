"""Resource Health for VMs (`Microsoft.ResourceHealth/availabilityStatuses/current`): the availability Azure
reports for each VM, with its reason, and since when (`occuredTime`, Azure's spelling).

What Resource Health sees is the platform's view: a host failure, a stop or deallocation someone asked for,
a VM still being created. A hung guest is invisible to it, as on Azure. Forced states
(`POST /_emulator/resource-health`) stand in for what the emulator does not model, e.g. a regional outage.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from emulator.arm import arm_ids
from emulator.arm.store import Resource
from emulator.seed import SEED_TENANT


class EmulatorState(Protocol):
    """What of the emulator's state Resource Health reads (emulator/state.py holds it; it imports this module)."""

    forced_health: list[Any]
    scheduled_events: Any
    guest_faults: Any
    clock: Any
    graph: Any
    store: Any

STATUS_TYPE = "Microsoft.ResourceHealth/AvailabilityStatuses"
HEALTH_TABLE = "healthresources"
AVAILABILITY_STATES = ("Available", "Unavailable", "Degraded", "Unknown")
_VM_TYPE = "microsoft.compute/virtualmachines"
# Texts from Microsoft's AvailabilityStatuses examples and VM health annotations.
_AVAILABLE = ("Available", "Vm is available", "We have not seen any issues with your virtual machine")
_UNKNOWN = "We are currently unable to determine the health of this virtual machine."
_HOST_CRASHED = ("The Virtual Machine unexpectedly crashed due to the underlying host server experiencing a "
                 "software failure or due to a failed hardware component.")
_BY_CUSTOMER = {  # power state -> (title, what the customer asked for)
    "stopped": ("Stopped", "stopped"), "stopping": ("Stopped", "stopped"),
    "deallocated": ("Stopped and deallocated", "stopped and deallocated"),
    "deallocating": ("Stopped and deallocated", "stopped and deallocated"),
    "starting": ("Starting", "starting"),
}


@dataclass
class Forced:
    """A state forced through the control API on the VMs of a name (in a group, when given)."""

    name: str
    resource_group: str | None
    availability_state: str
    context: str
    summary: str

    def aims_at(self, vm: Resource) -> bool:
        return self.name.lower() == vm.name.lower() and (
            self.resource_group is None or self.resource_group.lower() == vm.resource_group.lower())

    def record(self) -> dict[str, Any]:
        return {"name": self.name, "resource_group": self.resource_group,
                "availability_state": self.availability_state, "context": self.context, "summary": self.summary}


def _reason(state: str, title: str, summary: str, context: str, detail: str) -> dict[str, Any]:
    platform = context == "Platform Initiated"
    return {"availabilityState": state, "title": title, "summary": summary,
            "reasonType": "Unplanned" if platform else context, "context": context,
            "category": "Unplanned" if platform else "Not Applicable", "reasonChronicity": "Persistent",
            "detailedStatus": detail}


def availability(vm: Resource, state: EmulatorState) -> dict[str, Any]:
    """The VM's availability properties, without times."""
    forced = next((f for f in reversed(state.forced_health) if f.aims_at(vm)), None)
    if forced is not None:
        return _reason(forced.availability_state, forced.availability_state, forced.summary, forced.context,
                       forced.summary)
    event = state.scheduled_events.in_progress(vm)
    if event is not None:
        summary = f"This virtual machine is unavailable for planned maintenance ({event.event_type})."
        return {**_reason("Unavailable", "Planned maintenance", summary, "Platform Initiated", summary),
                "reasonType": "Planned", "category": "Planned"}
    if any(f.fault == "host_failure" for f in state.guest_faults.of(vm)):
        return _reason("Unavailable", "Unavailable", _HOST_CRASHED, "Platform Initiated", "VirtualMachineHostCrashed")
    power = vm.extra.get("power")
    if power is None or (power == "starting" and vm.properties.get("provisioningState") == "Creating"):
        return _reason("Unknown", "Unknown", _UNKNOWN, "Unknown", _UNKNOWN)
    if power in _BY_CUSTOMER:
        title, what = _BY_CUSTOMER[power]
        summary = f"This virtual machine is {what} as requested by an authorized user or process."
        return _reason("Unavailable", title, summary, "Customer Initiated", summary)
    title, summary, detail = _AVAILABLE  # reasons as in Microsoft's example of an Available VM
    return _reason("Available", title, summary, "Platform Initiated", detail)


def observe(vm: Resource, state: EmulatorState) -> None:
    """Remember when the VM's availability last changed: call on every change that may move it."""
    now = availability(vm, state)
    signature = (now["availabilityState"], now["summary"])
    seen = vm.extra.get("health")
    if seen is None or tuple(seen[0]) != signature:
        vm.extra["health"] = (signature, state.clock.utc_iso())
        state.graph.record_row(HEALTH_TABLE, status_key(vm.id), graph_row(vm, now))


def status_key(vm_key: str) -> str:
    return arm_ids.key(status_id(vm_key))


def graph_row(vm: Resource, now: dict[str, Any]) -> dict[str, Any]:
    """The VM's row of Resource Graph's `healthresources` table (microsoft.resourcehealth/availabilitystatuses)."""
    return {
        "id": status_id(vm.id), "name": "current", "type": STATUS_TYPE.lower(), "tenantId": SEED_TENANT, "kind": "",
        "location": str(vm.body.get("location", "")).replace(" ", "").lower(),
        "resourceGroup": vm.resource_group.lower(), "subscriptionId": vm.subscription, "managedBy": "",
        "sku": None, "plan": None, "tags": {}, "identity": None, "zones": None, "extendedLocation": None,
        "properties": {"targetResourceId": vm.id, "targetResourceType": "Microsoft.Compute/virtualMachines",
                       "availabilityState": now["availabilityState"], "occurredTime": vm.extra["health"][1],
                       "reasonType": now["reasonType"], "context": now["context"], "summary": now["summary"]},
    }


def observe_all(state: EmulatorState) -> None:
    """After a change the store does not see (a guest fault, a forced state): every VM observed."""
    for vm in state.store.of_type(_VM_TYPE):
        observe(vm, state)


def status_id(vm_id: str) -> str:
    return f"{vm_id}/providers/Microsoft.ResourceHealth/availabilityStatuses/current"


def status_body(vm: Resource, state: EmulatorState, recommended_actions: bool = False) -> dict[str, Any]:
    """`availability_statuses.get_by_resource` for a VM, in Microsoft's AvailabilityStatus shape; with
    `$expand=recommendedactions` what Azure recommends. A platform-caused unavailability is attributed to its root
    cause at once (`rootCauseAttributionTime`); no resolution ETA is given, as Azure gives one only when its
    engineers have estimated it."""
    observe(vm, state)
    properties = {**availability(vm, state), "occuredTime": vm.extra["health"][1],
                  "reportedTime": state.clock.utc_iso()}
    if properties["availabilityState"] != "Available" and properties["context"] == "Platform Initiated":
        properties["rootCauseAttributionTime"] = properties["occuredTime"]
    if recommended_actions:
        properties["recommendedActions"] = _recommended(properties)
    return {"id": status_id(vm.id), "name": "current", "type": STATUS_TYPE, "location": vm.body.get("location"),
            "properties": properties}


_SUPPORT = {"action": "If you are experiencing problems you believe are caused by Azure, contact support",
            "actionUrl": "<#SupportCase>", "actionUrlText": "contact support"}
_START = {"action": "To start this virtual machine, open the resource blade and click Start",
          "actionUrl": "<#ResourceBlade>", "actionUrlText": "resource blade"}


def _recommended(properties: dict[str, Any]) -> list[dict[str, str]]:
    """Azure's recommended actions (Microsoft's `AvailabilityStatus_GetByResource` example): start a VM that is not
    running, and contact support."""
    unavailable = properties["availabilityState"] == "Unavailable"
    return [dict(_START), dict(_SUPPORT)] if unavailable else [dict(_SUPPORT)]


def is_vm(resource: Resource | None) -> bool:
    return resource is not None and resource.type.lower() == _VM_TYPE
