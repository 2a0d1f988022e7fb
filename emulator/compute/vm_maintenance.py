"""What Azure does at a scheduled event's deadline (`scheduled_events.py` holds the events): the event's timer,
its start (the reboot, redeploy, freeze, preemption or deletion it announced) and its end."""

from __future__ import annotations

import asyncio
import contextlib

from emulator.arm import errors
from emulator.arm.store import Resource
from emulator.compute.guest import start_boot
from emulator.compute.scheduled_events import DEFAULT_DURATION_S, DEFAULT_NOTICE_S, ScheduledEvent
from emulator.compute.virtual_machines import VirtualMachinesBackend
from emulator.compute.vm_model import new_host
from emulator.compute.vm_power import VmPowerBackend
from emulator.health import vm_annotations
from emulator.health.resource_health import observe
from emulator.state import EmulatorState


class VmMaintenanceBackend:
    def __init__(self, state: EmulatorState, vms: VirtualMachinesBackend, power: VmPowerBackend) -> None:
        self.state = state
        self.vms = vms
        self.power = power

    def schedule(self, vm: Resource, event_type: str, notice_s: float | None = None, duration_s: int | None = None,
                 description: str = "", self_service_s: tuple[float, float] | None = None) -> ScheduledEvent:
        """A new event on `vm`; its deadline passes `notice_s` Azure seconds from now (never at time scale 0)."""
        notice = DEFAULT_NOTICE_S[event_type] if notice_s is None else notice_s
        duration = DEFAULT_DURATION_S[event_type] if duration_s is None else duration_s
        wall = self.state.clock.scaled(notice)
        event = self.state.scheduled_events.add(vm, event_type, notice, wall, duration, description, self_service_s)
        if wall > 0:
            event.task = asyncio.get_running_loop().create_task(self._at_deadline(event, wall))
        self.state.publish_foresight(vm)
        return event

    def degrade_host(self, vm: Resource, notice_s: float | None = None
                     ) -> tuple[vm_annotations.Annotation, ScheduledEvent]:
        """The VM's host degrades: annotated at once, and a Redeploy scheduled (Azure's service healing)."""
        category, impact, summary = vm_annotations.KNOWN[vm_annotations.DEGRADED]
        annotation = vm_annotations.Annotation(vm.id, vm_annotations.DEGRADED, "Platform Initiated", category, impact,
                                            summary, self.state.clock.utc_iso())
        self.state.annotations.set(annotation)
        event = self.schedule(vm, "Redeploy", notice_s, None, "Host hardware degraded: the VM will be redeployed")
        return annotation, event

    async def _at_deadline(self, event: ScheduledEvent, wall_s: float) -> None:
        await asyncio.sleep(wall_s)
        await self.start(event)
        if event.status == "Started" and event.duration_s > 0:
            await self.state.clock.sleep_scaled(event.duration_s)
        self.complete(event)

    async def start(self, event: ScheduledEvent) -> None:
        """The deadline has passed: Azure does what the event announced."""
        vm = self.state.store.get(event.vm_id)
        if vm is None or event.status != "Scheduled":
            return
        event.status, event.outcome = "Started", "platform"
        kind = event.event_type
        if kind == "Preempt":
            with contextlib.suppress(errors.ArmError):  # not running or busy: nothing left to preempt
                await self.power.evict(vm.id)
            self.complete(event)
            return
        if kind == "Terminate":
            await self.vms.delete_with_cascades(vm)
            return
        if kind == "Redeploy":
            vm.extra["host"] = new_host()
            self.state.guest_faults.repaired(vm, "redeploy")
            self.state.annotations.clear_on_redeploy(vm)
        if kind in ("Reboot", "Redeploy") and vm.extra.get("power") == "running":
            start_boot(vm, self.state)
        self._changed(vm)

    def complete(self, event: ScheduledEvent) -> None:
        if event.status == "Completed":
            return
        event.status = "Completed"
        vm = self.state.store.get(event.vm_id)
        if vm is not None:
            self._changed(vm)

    def _changed(self, vm: Resource) -> None:
        self.state.publish_foresight(vm)
        observe(vm, self.state)


def approved(state: EmulatorState, vm: Resource, verb: str) -> None:
    """The owner's redeploy or restart of `vm` ended: the events it stands for are done, and a redeploy leaves the
    degraded host behind."""
    state.scheduled_events.approve(vm, verb)
    if verb == "redeploy":
        state.annotations.clear_on_redeploy(vm)
    state.publish_foresight(vm)
