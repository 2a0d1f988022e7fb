"""Shared pieces of the fleet-sweep tests: run one FleetSweep, arrange machines and out-of-band changes."""

import uuid
from datetime import timedelta
from typing import Any

from temporalio.client import WorkflowHandle

from models.status import Phase
from models.sweep import SWEEP_WORKFLOW, SweepInput, SweepReport
from tests.support.sdk import SyncClients, sdk_clients
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

GRACE = timedelta(minutes=30)


async def sweep(stack: Stack, record: str = "", **settings: Any) -> SweepReport:
    """One FleetSweep run now, as the schedule starts it (the real driver, the emulator). A sweep has no
    timer: waiting for it must not let the test server skip ahead to the machines' next timers."""
    with stack.env.auto_time_skipping_disabled():
        handle = await stack.env.client.start_workflow(
            SWEEP_WORKFLOW, SweepInput(**settings), id=f"azmc-fleet-sweep-test-{uuid.uuid4()}",
            task_queue=stack.task_queue, result_type=SweepReport)
        report = await handle.result()
    if record:
        await record_history(handle, record)
    return report


async def running_machine(stack: Stack, name: str = "vm1", **overrides: Any) -> WorkflowHandle:
    handle = await start_machine(stack.env.client, stack.task_queue,
                                 spec_dict(name, subnet_id=stack.emulator.subnet_id, **overrides))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    return handle


def names(stack: Stack, machine: str) -> list[str]:
    """The emulated resources of one machine, as "<short type> <name>", sorted."""
    return sorted(f"{r['type'].split('/')[-1]} {r['name']}" for r in stack.machine_resources(machine))


def azure(stack: Stack) -> SyncClients:
    return sdk_clients(stack.emulator, token="workflow-test-token")
