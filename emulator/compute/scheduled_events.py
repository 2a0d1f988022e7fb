"""Scheduled events: what Azure announces it will do to a VM (Reboot, Redeploy, Freeze, Preempt, Terminate), with a
deadline (`NotBefore`) on the emulator's clock, and what it then does.

Each event has the shape the Instance Metadata Service's `scheduledevents` endpoint documents (EventId, EventType,
ResourceType, Resources, EventStatus, NotBefore in RFC 1123, Description, EventSource, DurationInSeconds). A VM whose
`scheduledEventsPolicy.scheduledEventsAdditionalPublishingTargets.eventGridAndResourceGraph.enable` is true has its
events published to Resource Graph: a row of `healthresources` of type `EVENT_ROW_TYPE` per event, its properties the
event plus `targetResourceId`. Microsoft documents the publishing target and the event fields; the table and the row's
type could not be verified from here (no published example), so azmc reads them in one function
(activities/reading/foresight.py).

At its deadline an event starts (`Started`): Reboot reboots the guest, Redeploy moves the VM to a new host (its
disks kept), Freeze pauses it, Preempt evicts a Spot VM, Terminate deletes the VM; Reboot, Redeploy and Freeze keep
the VM unavailable (agent unresponsive, Resource Health Unavailable, planned) for `DurationInSeconds`, then the event
is `Completed`. The owner may act first: a redeploy completes the VM's pending Redeploy, Reboot and Freeze events, a
restart its pending Reboot (the `userInitiatedRedeploy` / `userInitiatedReboot` approvals of Azure); Azure then
does nothing more. At time scale 0 no deadline passes by itself (an instant deadline would leave no notice): the
control call `POST /_emulator/scheduled-events/{id}/start` (and `/complete`) moves it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

from emulator.arm import arm_ids
from emulator.arm.store import Resource

EVENT_TYPES = ("Reboot", "Redeploy", "Freeze", "Preempt", "Terminate")
# Azure's notice: at least 15 minutes for Reboot, Redeploy and Freeze, 30 seconds for a Spot preemption.
DEFAULT_NOTICE_S = {"Reboot": 900, "Redeploy": 900, "Freeze": 900, "Preempt": 30, "Terminate": 900}
DEFAULT_DURATION_S = {"Reboot": 300, "Redeploy": 600, "Freeze": 5, "Preempt": -1, "Terminate": -1}
EVENT_TABLE = "healthresources"
EVENT_ROW_TYPE = "microsoft.compute/virtualmachines/scheduledevents"  # unverified: see the module's docstring
# What the VM's own operations approve ahead of Azure.
APPROVED_BY = {"redeploy": {"Redeploy", "Reboot", "Freeze"}, "restart": {"Reboot"}}
_UNAVAILABLE_WHILE = {"Reboot", "Redeploy", "Freeze"}


@dataclass
class ScheduledEvent:
    event_id: str
    vm_id: str
    vm_name: str
    event_type: str
    not_before: str  # RFC 1123, as the IMDS shows it
    duration_s: int
    description: str
    status: str = "Scheduled"  # Scheduled -> Started -> Completed
    outcome: str = ""  # "platform" (Azure acted at the deadline) or "approved by <verb>" (the owner acted first)
    created: str = ""
    # A Redeploy's self-service window (ISO times): when the owner may take the maintenance (Azure's
    # preMaintenanceWindow); empty: from its announcement to its deadline.
    self_service: tuple[str, str] = ("", "")
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def imds(self) -> dict[str, Any]:
        return {"EventId": self.event_id, "EventType": self.event_type, "ResourceType": "VirtualMachine",
                "Resources": [self.vm_name], "EventStatus": self.status, "NotBefore": self.not_before,
                "Description": self.description, "EventSource": "Platform", "DurationInSeconds": self.duration_s}

    def record(self) -> dict[str, Any]:
        return {**self.imds(), "targetResourceId": self.vm_id, "outcome": self.outcome, "created": self.created}


def publishes(vm: Resource) -> bool:
    """The VM's scheduledEventsPolicy publishes its events to Event Grid and Resource Graph."""
    policy = vm.properties.get("scheduledEventsPolicy") or {}
    targets = policy.get("scheduledEventsAdditionalPublishingTargets") or {}
    return bool((targets.get("eventGridAndResourceGraph") or {}).get("enable"))


def graph_row(vm: Resource, event: ScheduledEvent) -> dict[str, Any]:
    return {
        "id": f"{vm.id}/providers/Microsoft.Compute/scheduledEvents/{event.event_id}", "name": event.event_id,
        "type": EVENT_ROW_TYPE, "tenantId": "", "kind": "",
        "location": str(vm.body.get("location", "")).replace(" ", "").lower(),
        "resourceGroup": vm.resource_group.lower(), "subscriptionId": vm.subscription, "managedBy": "",
        "sku": None, "plan": None, "tags": {}, "identity": None, "zones": None, "extendedLocation": None,
        "properties": {**event.imds(), "targetResourceId": vm.id,
                       "targetResourceType": "Microsoft.Compute/virtualMachines"},
    }


Effect = Callable[[Resource, ScheduledEvent], Awaitable[None]]


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


class ScheduledEvents:
    def __init__(self) -> None:
        self._events: dict[str, ScheduledEvent] = {}
        self._ids = itertools.count(1)

    def add(self, vm: Resource, event_type: str, notice_s: float, wall_notice_s: float, duration_s: int,
            description: str, self_service_s: tuple[float, float] | None = None) -> ScheduledEvent:
        """`self_service_s`: a Redeploy's self-service window, in Azure seconds from now. At time scale 0 the
        deadline shown is the announced one (`notice_s` from now), though it passes only by the control call."""
        now = datetime.now(UTC)
        not_before = format_datetime(now + timedelta(seconds=wall_notice_s or notice_s), usegmt=True)
        event = ScheduledEvent(f"{next(self._ids):08X}-{event_type.upper()}", vm.id, vm.name, event_type, not_before,
                               duration_s, description or f"{event_type} scheduled by the platform in "
                               f"{int(notice_s)} s", created=_iso(now))
        if self_service_s is not None:
            event.self_service = (_iso(now + timedelta(seconds=self_service_s[0])),
                                  _iso(now + timedelta(seconds=self_service_s[1])))
        self._events[event.event_id] = event
        return event

    def get(self, event_id: str) -> ScheduledEvent | None:
        return self._events.get(event_id)

    def of(self, vm: Resource) -> list[ScheduledEvent]:
        key = arm_ids.key(vm.id)
        return [e for e in self._events.values() if arm_ids.key(e.vm_id) == key]

    def in_progress(self, vm: Resource) -> ScheduledEvent | None:
        """The VM's started event that keeps it unavailable (a reboot, a redeploy, a freeze), if any."""
        return next((e for e in self.of(vm) if e.status == "Started" and e.event_type in _UNAVAILABLE_WHILE), None)

    def pending(self, vm: Resource, event_type: str) -> ScheduledEvent | None:
        return next((e for e in self.of(vm) if e.status == "Scheduled" and e.event_type == event_type), None)

    def approve(self, vm: Resource, verb: str) -> list[ScheduledEvent]:
        """The owner's `verb` (redeploy, restart) did what the pending events announced: they complete now."""
        done = [e for e in self.of(vm) if e.status == "Scheduled" and e.event_type in APPROVED_BY.get(verb, set())]
        for event in done:
            event.status, event.outcome = "Completed", f"approved by {verb}"
            if event.task is not None:
                event.task.cancel()
        return done

    def ids_of(self, vm_key: str) -> list[str]:
        return [e.event_id for e in self._events.values() if arm_ids.key(e.vm_id) == vm_key]

    def forget(self, vm_key: str) -> None:
        """The VM is gone: its events with it."""
        for event in [e for e in self._events.values() if arm_ids.key(e.vm_id) == vm_key]:
            if event.task is not None and event.task is not asyncio.current_task():
                event.task.cancel()
            del self._events[event.event_id]

    def list(self) -> list[dict[str, Any]]:
        return [e.record() for e in self._events.values()]

    def clear(self) -> None:
        for event in self._events.values():
            if event.task is not None:
                event.task.cancel()
        self._events.clear()
