"""The `azmc demo --pool` scenario: a pool of 3 machines, then a rolling update to a new revision whose first
new machine's VM creation fails (InternalExecutionError); that machine compensates, waits in
CrashLoopBackOff and is created again, and the rollout goes on to the end; then the pool is deleted and
nothing may be left.

This module drives the scenario and records what happened; pool_command.py shows it.
"""

import asyncio
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from temporalio.client import Client, WorkflowExecutionStatus

from cli import pool_workflow
from cli.demo.scenario import _SSH_KEY, request_delta
from cli.emulator_client import EmulatorControl
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, seed_subnet_id
from models.durations import CHECK_BOUNDS
from models.naming import pool_workflow_id
from models.pool import PoolSpec, PoolStatus
from models.status import Phase

REPLICAS = 3


INTERNAL_ERROR = "An internal execution error occurred. Please retry later."


def demo_pool_spec(subscription: str, version: str = "1", token: str | None = None) -> PoolSpec:
    """The demo's pool: 3 machines, rolled one at a time (max_surge 1, max_unavailable 0)."""
    return PoolSpec.model_validate({
        "name": f"demo-{token or secrets.token_hex(2)}", "resource_group": SEED_RESOURCE_GROUP,
        "replicas": REPLICAS, "strategy": {"max_surge": 1, "max_unavailable": 0}, "max_replacements": 1,
        "template": {
            "location": SEED_LOCATION, "vm_size": "Standard_D2s_v5", "subnet_id": seed_subnet_id(subscription),
            "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server",
                      "version": f"24.04.{version}"},
            "ssh_public_key": _SSH_KEY, "tags": {"version": version},
        },
    })


def with_version(spec: PoolSpec, version: str) -> PoolSpec:
    # A new image version: a change that needs new VMs (a tag change alone is applied in place, no rollout).
    template = {**spec.template.as_input(), "tags": {"version": version},
                "image": {**spec.template.image.model_dump(), "version": f"24.04.{version}"}}
    return spec.with_changes(CHECK_BOUNDS, template=template)


def settled(revision: str) -> Callable[[PoolStatus], bool]:
    def accept(status: PoolStatus) -> bool:
        machines = [m for m in status.machines if not m.preserved]
        return (len(machines) == status.available == status.replicas and status.current_revision == revision
                and all(m.phase == Phase.RUNNING and m.revision == revision for m in machines))
    return accept


@dataclass
class PoolDemoResult:
    status: PoolStatus  # the last status read before the pool completed
    phases: dict[str, list[str]]  # every machine's phases as the demo saw them, in order
    hit: list[str]  # machines whose creation failed (CrashLoopBackOff or Failed), the unlucky one
    leftovers: list[dict[str, object]]
    requests: dict[str, int]
    seconds: float
    closed: WorkflowExecutionStatus | None = None

    @property
    def healed(self) -> bool:
        """Every machine whose creation failed was Running afterwards."""
        return bool(self.hit) and all(_ran_after_failing(self.phases[name]) for name in self.hit)

    @property
    def ok(self) -> bool:
        return self.healed and not self.leftovers and self.closed == WorkflowExecutionStatus.COMPLETED


_FAILURES = (Phase.CRASH_LOOP_BACK_OFF, Phase.FAILED)


def _first_failure(phases: list[str]) -> int | None:
    return next((index for index, phase in enumerate(phases) if phase in _FAILURES), None)


def _ran_after_failing(phases: list[str]) -> bool:
    failed_at = _first_failure(phases)
    return failed_at is not None and Phase.RUNNING in phases[failed_at:]


OnChange = Callable[[PoolStatus, list[str]], None]  # the status, and what changed since the last call, as lines


@dataclass
class PoolDemo:
    client: Client
    emulator: EmulatorControl
    spec: PoolSpec
    task_queue: str
    on_change: OnChange
    poll_s: float = 0.4
    phases: dict[str, list[str]] = field(default_factory=dict)
    _ops_seen: set[tuple[object, ...]] = field(default_factory=set)
    _last: PoolStatus | None = None

    @property
    def wf_id(self) -> str:
        return pool_workflow_id(self.spec.resource_group, self.spec.name)

    async def run(self, timeout_s: float = 300) -> PoolDemoResult:
        started, before = time.monotonic(), self.emulator.requests()
        await pool_workflow.apply_pool(self.client, self.spec, self.task_queue)
        await self._until(settled(self.spec.revision), timeout_s, f"{REPLICAS} machines Running")
        new = with_version(self.spec, "2")
        # The first VM of the new revision: Azure accepts the PUT, then its operation fails.
        self.emulator.add_fault(operation="virtualMachines.put", name=f"{self.spec.name}-*", status=500,
                                code="InternalExecutionError", message=INTERNAL_ERROR, times=1, stage="operation")
        await pool_workflow.set_template(self.client, self.wf_id, new)
        await self._until(settled(new.revision), timeout_s, f"the rollout to rev {new.revision}")
        await pool_workflow.request_delete(self.client, self.wf_id, "azmc demo --pool")
        closed = await self._until_closed(timeout_s)
        last = self._last or await pool_workflow.status(self.client, self.wf_id)
        hit = [name for name, seen in self.phases.items() if _first_failure(seen) is not None]
        return PoolDemoResult(
            status=last, phases=self.phases, hit=hit,
            leftovers=self.emulator.resources(name_prefix=f"{self.spec.name}-"),
            requests=request_delta(before, self.emulator.requests()), seconds=time.monotonic() - started,
            closed=closed)

    async def _until(self, done: Callable[[PoolStatus], bool], timeout_s: float, what: str) -> None:
        deadline = time.monotonic() + timeout_s
        while not done(await self._poll()):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the pool demo did not reach {what} within {timeout_s:.0f}s")
            await asyncio.sleep(self.poll_s)

    async def _until_closed(self, timeout_s: float) -> WorkflowExecutionStatus | None:
        deadline = time.monotonic() + timeout_s
        while True:
            state = (await self.client.get_workflow_handle(self.wf_id).describe()).status
            if state != WorkflowExecutionStatus.RUNNING:
                return state
            if time.monotonic() > deadline:
                raise TimeoutError(f"the pool was not deleted within {timeout_s:.0f}s")
            await self._poll()
            await asyncio.sleep(self.poll_s)

    async def _poll(self) -> PoolStatus:
        status = await pool_workflow.status(self.client, self.wf_id)
        lines = []
        for machine in status.machines:
            seen = self.phases.setdefault(machine.name, [])
            if not seen or seen[-1] != machine.phase:
                seen.append(str(machine.phase))
                lines.append(f"{machine.name:<16} {machine.phase:<16} rev {machine.revision}"
                             + (" (replacement)" if machine.replacement else ""))
        for op in status.recent_operations:
            key = (op.at, op.kind, op.description)
            if key not in self._ops_seen:
                self._ops_seen.add(key)
                lines.append(f"pool: {op.kind}: {op.description}")
        if lines or self._last is None or status.summary != self._last.summary:
            self.on_change(status, lines)
        self._last = status
        return status
