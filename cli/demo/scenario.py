"""The `azmc demo` scenario: machines applied at once, one hit by AllocationFailed (whose NIC Azure then
refuses to delete for a while), all reach Running, then all are deleted and nothing may be left.

This module drives the scenario and records what happened; command.py shows it.
"""

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus

from cli import machines
from cli.emulator_client import EmulatorControl
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, seed_subnet_id
from models.activity_io import ActivityName
from models.naming import workflow_id
from models.spec import MachineSpec
from models.status import MachineStatus, Phase
from models.temporal_api import RECONCILE_SIGNAL

DEMO_POOL = "demo"
_NIC_RESERVATION_S = 180  # Azure holds the NIC of a failed VM create this long (scaled by the emulator)


def unlucky_creation_timeout_s(time_scale: float) -> int:
    """Long enough for the compensation to wait out the NIC reservation, short enough to watch."""
    return int(6 + _NIC_RESERVATION_S * time_scale)
_SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoKeyOnlyForTheEmulator azmc-demo"
_ALLOCATION_FAILED = (
    "Allocation failed. We do not have sufficient capacity for the requested VM size in this region. "
    "Read more about improving likelihood of allocation success at http://aka.ms/allocation-guidance"
)


def demo_specs(count: int, subscription: str, time_scale: float, token: str | None = None) -> list[MachineSpec]:
    """`count` machines; the second is the unlucky one, with a short creation timeout so that after
    AllocationFailed it does not sit out the 10-minute capacity backoff: it goes Failed (cleaned up),
    and the demo's operator sends `reconcile` to create it again."""
    token = token or secrets.token_hex(2)
    return [
        MachineSpec.model_validate({
            **({"timeouts": {"creation": f"{unlucky_creation_timeout_s(time_scale)}s"}} if index == 2 else {}),
            "name": f"demo-{token}-{index}",
            "resource_group": SEED_RESOURCE_GROUP,
            "location": SEED_LOCATION,
            "vm_size": "Standard_D2s_v5",
            "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
            "subnet_id": seed_subnet_id(subscription),
            "ssh_public_key": _SSH_KEY,
            "data_disks": [{"name": "data", "lun": 0, "size_gb": 16}],
            "pool": DEMO_POOL,
        })
        for index in range(1, count + 1)
    ]


@dataclass
class MachineTrack:
    """What the demo saw of one machine while polling its `status` query."""

    spec: MachineSpec
    wf_id: str
    status: MachineStatus | None = None
    closed: WorkflowExecutionStatus | None = None
    stages: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    reconciled_in: set[str] = field(default_factory=set)
    notes: list[str] = field(default_factory=list)  # what the demo itself did to the machine
    # From the workflow history at the end (exact, unlike polling): VM creations tried, Azure errors met.
    vm_create_attempts: int = 0
    azure_errors: list[str] = field(default_factory=list)
    _seen_operations: set[tuple[object, ...]] = field(default_factory=set)

    @property
    def phase(self) -> str:
        if self.closed == WorkflowExecutionStatus.COMPLETED:
            return Phase.DELETED
        return str(self.status.phase) if self.status else Phase.PENDING

    def observe(self, status: MachineStatus) -> bool:
        """Record a new answer; True when something visible changed."""
        changed = self.status is None or (status.phase, status.last_operation) != (
            self.status.phase, self.status.last_operation)  # fmt: skip
        self.status = status
        operations = [*status.recent_operations, *([status.last_operation] if status.last_operation else [])]
        for operation in operations:  # oldest first
            key = (operation.updated_at, operation.stage, operation.state, operation.description)
            if key in self._seen_operations:
                continue
            self._seen_operations.add(key)
            if not self.stages or self.stages[-1] != operation.stage:
                self.stages.append(str(operation.stage))
        if status.last_error and status.last_error not in self.errors:
            self.errors.append(status.last_error)
        return changed

    async def read_history(self, client: Client) -> None:
        """VM creations tried and every distinct activity failure, from the workflow's event history."""
        async for event in client.get_workflow_handle(self.wf_id).fetch_history_events():
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
                self.vm_create_attempts += event.activity_task_scheduled_event_attributes.activity_type.name == (
                    ActivityName.ENSURE_VM)  # fmt: skip
            elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
                failure = event.activity_task_failed_event_attributes.failure
                text = f"{failure.application_failure_info.type or 'error'}: {failure.message}"
                if text not in self.azure_errors:
                    self.azure_errors.append(text)


@dataclass
class DemoResult:
    tracks: list[MachineTrack]
    leftovers: list[dict[str, object]]
    requests: dict[str, int]
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.leftovers and all(track.phase == Phase.DELETED for track in self.tracks)


def request_delta(before: dict[str, object], after: dict[str, object]) -> dict[str, int]:
    """Per-operation ARM request counts made during the demo (the emulator counts since its start)."""

    def flat(counts: dict[str, object]) -> dict[str, int]:
        inner = cast(dict[str, object], counts.get("by_operation") or counts.get("counts") or counts)
        return {str(k): int(v) for k, v in inner.items() if isinstance(v, int | float)}

    old, new = flat(before), flat(after)
    return {key: new[key] - old.get(key, 0) for key in sorted(new) if new[key] - old.get(key, 0) > 0}


OnChange = Callable[[list[MachineTrack], MachineTrack | None], None]


class DemoScenario:
    def __init__(self, client: Client, emulator: EmulatorControl, specs: list[MachineSpec], task_queue: str,
                 on_change: OnChange, poll_s: float = 0.4) -> None:  # fmt: skip
        self.client, self.emulator, self.task_queue = client, emulator, task_queue
        self.tracks = [MachineTrack(spec, workflow_id(spec.resource_group, spec.name)) for spec in specs]
        self.on_change, self.poll_s = on_change, poll_s

    async def run(self, phase_timeout_s: float = 300) -> DemoResult:
        started = time.monotonic()
        before = self.emulator.requests()
        unlucky = self.tracks[1].spec.name
        # How capacity errors really arrive: the VM PUT is accepted, then its long-running operation fails.
        self.emulator.add_fault(operation="virtualMachines.put", name=unlucky, status=409, code="AllocationFailed",
                                message=_ALLOCATION_FAILED, times=1, stage="operation")  # fmt: skip
        await asyncio.gather(*(machines.apply(self.client, t.spec, self.task_queue) for t in self.tracks))
        await self._until(lambda t: t.phase == Phase.RUNNING, phase_timeout_s)
        await asyncio.gather(*(machines.request_delete(self.client, t.wf_id, reason="azmc demo") for t in self.tracks))
        await self._until(lambda t: t.closed is not None, phase_timeout_s)
        await asyncio.gather(*(track.read_history(self.client) for track in self.tracks))
        prefix = self.tracks[0].spec.name.rsplit("-", 1)[0] + "-"
        return DemoResult(
            tracks=self.tracks,
            leftovers=self.emulator.resources(name_prefix=prefix),
            requests=request_delta(before, self.emulator.requests()),
            seconds=time.monotonic() - started,
        )

    async def _until(self, done: Callable[[MachineTrack], bool], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not all(done(track) for track in self.tracks):
            if time.monotonic() > deadline:
                stuck = ", ".join(f"{t.spec.name} {t.phase}" for t in self.tracks if not done(t))
                raise TimeoutError(f"the demo did not finish within {timeout_s:.0f}s: {stuck}")
            await asyncio.gather(*(self._poll(track) for track in self.tracks if track.closed is None))
            await asyncio.sleep(self.poll_s)

    async def _poll(self, track: MachineTrack) -> None:
        state = await machines.execution_status(self.client, track.wf_id)
        status = await machines.status(self.client, track.wf_id)
        changed = track.observe(status)
        if state != WorkflowExecutionStatus.RUNNING:
            track.closed = state
            changed = True
        elif self._wants_reconcile(track, status):
            # The operator's move once Azure has capacity again: "try now" instead of waiting out the backoff.
            track.reconciled_in.add(status.phase)
            await self.client.get_workflow_handle(track.wf_id).signal(RECONCILE_SIGNAL)
            track.notes.append(f"the demo sent `reconcile` in {status.phase}")
            changed = True
        if changed:
            self.on_change(self.tracks, track)

    def _wants_reconcile(self, track: MachineTrack, status: MachineStatus) -> bool:
        """In CrashLoopBackOff or Failed, once compensation left nothing behind; once per phase."""
        waiting = status.phase in (Phase.CRASH_LOOP_BACK_OFF, Phase.FAILED) and status.next_retry_at is not None
        failed_clean = status.phase == Phase.FAILED and status.inventory.is_empty
        return (waiting or failed_clean) and status.inventory.is_empty and status.phase not in track.reconciled_in
