"""A deploy on an idle fleet: how long until every machine runs the new version, and what it costs.

`python -m bench.upgrade_fleet [--machines 1000] [--per-sweep 100]`: a dev server, the emulator (time scale 0)
and one `azmc worker` process, version A of the deployment (it makes itself current). N machines are applied and
Running (idle: their next own check is 6 h away). Then version B (this code under another build id, as a second
worker in this process) is made current, and fleet sweeps run back to back, each waking at most `--per-sweep`
runs on A with `upgrade` (docs/upgrades.md), until every machine's run is on B. Measured: the sweeps it took and
their time (in production one a minute, so sweeps x 1 min), the `upgrade` signals and continue-as-new events per
machine, workflow task failures (goal 0) and when the server shows A drained. Written to
bench/results/upgrade_fleet.json; never asserted.
"""

import argparse
import asyncio
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from temporalio.api.enums.v1 import EventType, VersionDrainageStatus
from temporalio.client import Client
from temporalio.common import WorkerDeploymentVersion
from temporalio.worker import Worker

from activities.driver import AzureDriver
from bench.lifecycle_runs import bounded, count, machine_ids, machine_starter, wait_count
from bench.results_file import row, write_results
from bench.stack import start_processes
from models.offerings_memory import offerings_task_queue
from models.search_attributes import AZMC_PHASE
from models.sweep import SWEEP_WORKFLOW, SweepInput, SweepReport
from models.temporal_api import WORKFLOW_TYPE
from workers.connect import connect
from workers.deployment import build_id, describe, make_current, pinned
from workers.sandbox import workflow_runner
from workers.settings import TASK_QUEUE, load_settings
from workers.worker import azure_config, paced, worker_client
from workflows.offerings.workflow import Offerings
from workflows.registry import ALL_WORKFLOWS

# The server re-checks a draining version every second (3 minutes by default), so the bench sees A drained.
FAST_DRAINAGE = ("--dynamic-config-value", "matching.wv.VersionDrainageStatusVisibilityGracePeriod=\"1s\"",
                 "--dynamic-config-value", "matching.wv.VersionDrainageStatusRefreshInterval=\"1s\"")
PREFIX = "upgrade"
DEPLOYMENT = "azmc"
INSTALLATION = "bench"  # both versions act for one installation, as a deploy's workers do


def on(build: str) -> str:
    return f"TemporalWorkerDeploymentVersion = '{DEPLOYMENT}:{build}'"


async def drained(client: Client, build: str) -> bool:
    described = await describe(client, DEPLOYMENT)
    assert described is not None
    return any(summary.deployment_version.build_id == build
               and summary.drainage_status == VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED
               for summary in described.worker_deployment_info.version_summaries)


async def until(check: Callable[[], Awaitable[bool]], limit_s: float = 600.0) -> None:
    deadline = time.monotonic() + limit_s
    while not await check():
        if time.monotonic() > deadline:
            raise TimeoutError(f"not reached within {limit_s:.0f} s")
        await asyncio.sleep(1.0)


async def failed_tasks(client: Client) -> int:
    failed = 0
    async for execution in client.list_workflows(f"WorkflowType = '{WORKFLOW_TYPE}'"):
        history = await client.get_workflow_handle(execution.id, run_id=execution.run_id).fetch_history()
        failed += sum(event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED for event in history.events)
    return failed


async def measure(address: str, emulator_url: str, machines: int, per_sweep: int) -> list[dict]:
    settings = load_settings(temporal_address=address, azure_endpoint=emulator_url, installation_id=INSTALLATION)
    client = await connect(settings)
    ids = machine_ids(PREFIX, machines)
    began = time.monotonic()
    await bounded([lambda wf_id=wf_id: machine_starter(client)(wf_id) for wf_id in ids])  # type: ignore[misc]  # mypy cannot type a lambda's default argument
    machine_runs = f"WorkflowType = '{WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'"
    await wait_count(client, f"{machine_runs} AND {AZMC_PHASE.name} = 'Running'", machines)
    print(f"{machines} machines Running on A in {time.monotonic() - began:.0f} s")
    old = build_id()
    new = f"{old}-b"
    driver = await AzureDriver.open(azure_config(settings))
    config = pinned(WorkerDeploymentVersion(DEPLOYMENT, new))
    polls = worker_client(client)
    async with Worker(polls, task_queue=TASK_QUEUE, workflows=ALL_WORKFLOWS, activities=driver.activities(),
                      workflow_runner=workflow_runner(), deployment_config=config, max_cached_workflows=2000), \
            Worker(polls, task_queue=offerings_task_queue(TASK_QUEUE), workflows=[Offerings],
                   workflow_runner=workflow_runner(), deployment_config=config), \
            paced(polls, TASK_QUEUE, driver.activities(), deployment_config=config):
        await make_current(client, DEPLOYMENT, new)
        began, sweeps, signalled, sweep_seconds = time.monotonic(), 0, 0, []
        while await count(client, f"{machine_runs} AND {on(new)}") < machines:
            started = time.monotonic()
            report: SweepReport = await client.execute_workflow(
                SWEEP_WORKFLOW, SweepInput(max_upgrade_signals=per_sweep), id=f"sweep-{uuid.uuid4()}",
                task_queue=TASK_QUEUE, result_type=SweepReport)
            sweeps, signalled = sweeps + 1, signalled + len(report.upgrade_signalled)
            sweep_seconds.append(time.monotonic() - started)
            print(f"sweep {sweeps}: {len(report.upgrade_signalled)} signalled in {sweep_seconds[-1]:.1f} s; "
                  f"{await count(client, f'{machine_runs} AND {on(new)}')} on B")
        moved_s = time.monotonic() - began
        continued = await count(client, f"WorkflowType = '{WORKFLOW_TYPE}' AND ExecutionStatus = 'ContinuedAsNew'")
        drain_began = time.monotonic()
        await until(lambda: drained(client, old))
        drained_s = time.monotonic() - drain_began
        failed = await failed_tasks(client)
    await driver.close()
    print(f"all {machines} on B after {sweeps} sweeps, {moved_s:.0f} s; {signalled} signals, {continued} "
          f"continue-as-new; A drained {drained_s:.0f} s later; {failed} workflow tasks failed")
    note = f"{machines} idle machines, at most {per_sweep} upgrade signals per sweep"
    return [
        row("sweeps until every idle machine runs the new version", sweeps, "sweeps", f"<= {machines // per_sweep + 1}",
            note=f"{note}; one sweep a minute in production: {sweeps} min"),
        row("time to move them, sweeps back to back", round(moved_s, 1), "s", note=note),
        row("seconds per sweep while moving", round(sum(sweep_seconds) / len(sweep_seconds), 2), "s"),
        row("upgrade signals per machine", round(signalled / machines, 2), "signals", "1"),
        row("continue-as-new per machine", round(continued / machines, 2), "runs", "1"),
        row("workflow tasks failed", failed, "tasks", "0"),
        row("old version drained after the last move", round(drained_s, 1), "s",
            note="drainage re-checked every second here (3 min by default)"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.upgrade_fleet", description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=1000)
    parser.add_argument("--per-sweep", type=int, default=100,
                        help="upgrade signals per sweep (AZMC_MAX_UPGRADE_SIGNALS)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="azmc-bench-") as tmp:
        processes = start_processes(Path(tmp), bare=False, server_flags=FAST_DRAINAGE, wait_for_worker=True,
                                    worker_env={"AZMC_MAX_CACHED_WORKFLOWS": "2000",
                                                "AZMC_INSTALLATION_ID": INSTALLATION})
        try:
            rows = asyncio.run(measure(processes.address, processes.emulator_url, args.machines, args.per_sweep))
        finally:
            processes.stop()
    write_results("upgrade_fleet", rows)


if __name__ == "__main__":
    main()
