"""Many machines Running at once on ONE azmc worker process: memory, task timeouts, `status` for all.

`python -m bench.scale [--machines 1000] [--cache 1000] [--workflow-tasks 100]`: a dev server, the
emulator (time scale 0) and one `azmc worker` (AZMC_MAX_CACHED_WORKFLOWS / _MAX_CONCURRENT_WORKFLOW_TASKS
from the flags). Starts N machines (default health_check_interval, 6 h), then measures:
- the time until all are Running, and the worker's RSS once they are (goal < 2 GiB at 10,000);
- workflow task timeouts and failures, counted from every machine's history (goal 0);
- the time for all N to answer a `status` query (100 at a time), and each query's latency;
- how a Running machine's history grows: the events one health check adds (a probe machine checking
  every 2 s), times the checks a day makes at the default interval and at the old 10-minute one.
Printed and written to bench/results/scale.json (scale_<N>[_cache<C>].json for others); never asserted.
"""

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from temporalio.client import Client, WorkflowQueryFailedError
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import RPCError

from bench.histories import histories_stats, history_stats
from bench.lifecycle_runs import bench_spec, bounded, count, machine_ids
from bench.results_file import row, write_results
from bench.stack import Processes, rss_mib, start_processes
from cli.machines import apply
from emulator.seed import SEED_RESOURCE_GROUP
from models.naming import workflow_id
from models.search_attributes import AZMC_PHASE
from models.spec import HEALTH_CHECK_INTERVAL
from models.status import MachineStatus
from models.temporal_api import STATUS_QUERY, WORKFLOW_TYPE
from workers.settings import MAX_CACHED_WORKFLOWS, MAX_CONCURRENT_WORKFLOW_TASKS, TASK_QUEUE, Settings

DEFAULT_MACHINES = 1000
BEFORE_SWEEP_INTERVAL = timedelta(minutes=10)  # every machine's own check before the fleet sweep
DAY = timedelta(days=1)
PROBE_INTERVAL = timedelta(seconds=2)


async def wait_running(client: Client, prefix: str, target: int, timeout_s: float) -> None:
    query = (f"WorkflowType = '{WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND {AZMC_PHASE.name} = 'Running' "
             f"AND WorkflowId STARTS_WITH '{prefix}'")  # fmt: skip
    deadline = time.monotonic() + timeout_s
    while await count(client, query) < target:
        if time.monotonic() > deadline:
            raise TimeoutError(f"not all {target} machines Running after {timeout_s:.0f} s")
        await asyncio.sleep(1.0)


async def query_all(client: Client, ids: list[str], concurrency: int = 100,
                    progress: Callable[[str], None] | None = None) -> tuple[float, list[float], list[str]]:
    """Seconds for every machine to answer `status`, each answer's latency (seconds), the machines whose query
    failed (an RPC timeout: an evicted machine must replay to answer, and waits for a workflow task slot; or the
    SDK's deadlock detector, when that replay ran 2 s without yielding). `progress` hears the count every 30 s."""
    latencies: list[float] = []
    failed: list[str] = []
    gate = asyncio.Semaphore(concurrency)

    async def one(wf_id: str) -> None:
        async with gate:
            began = time.monotonic()
            try:
                await client.get_workflow_handle(wf_id).query(STATUS_QUERY, result_type=MachineStatus)
            except (RPCError, WorkflowQueryFailedError):
                failed.append(wf_id)
                return
            latencies.append(time.monotonic() - began)

    async def tell() -> None:
        while progress is not None:
            await asyncio.sleep(30)
            progress(f"  `status` answered by {len(latencies):,} of {len(ids):,}, {len(failed):,} failed, after "
                     f"{time.monotonic() - began:.0f} s")

    began = time.monotonic()
    teller = asyncio.create_task(tell())
    try:
        await asyncio.gather(*(one(wf_id) for wf_id in ids))
    finally:
        teller.cancel()
    return time.monotonic() - began, latencies, failed


async def events_per_check(client: Client) -> float:
    """History events one periodic health check adds to a Running machine (a probe checking every 2 s)."""
    spec = bench_spec("probe", timeouts={"health_check_interval": PROBE_INTERVAL.total_seconds()})
    await apply(client, spec, TASK_QUEUE)
    wf_id = workflow_id(SEED_RESOURCE_GROUP, "probe")
    await wait_running(client, wf_id, 1, 300)
    first = await history_stats(client, wf_id)
    await asyncio.sleep(12 * PROBE_INTERVAL.total_seconds())
    last = await history_stats(client, wf_id)
    checks = last.activities_before_signal - first.activities_before_signal  # one find_vm per check
    return (last.events - first.events) / max(checks, 1)


async def measure(processes: Processes, machines: int) -> dict[str, float]:
    client = await Client.connect(processes.address, data_converter=pydantic_data_converter)
    ids = machine_ids("scale", machines)
    began = time.monotonic()
    await bounded([lambda wf_id=wf_id: apply(client, bench_spec(wf_id.rsplit("/", 1)[1]), TASK_QUEUE)  # type: ignore[misc]  # mypy cannot type a lambda's default argument
                   for wf_id in ids])  # fmt: skip
    started_s = time.monotonic() - began
    await wait_running(client, workflow_id(SEED_RESOURCE_GROUP, "scale-"), machines, timeout_s=120 + machines * 0.5)
    running_s = time.monotonic() - began
    await asyncio.sleep(5)  # let the worker settle with every machine Running
    rss, peak = rss_mib(processes.worker_pid())
    query_s, latencies, query_failures = await query_all(client, ids)
    again_s, _, again_failures = await query_all(client, ids)
    histories = await histories_stats(client, ids)
    per_check = await events_per_check(client)
    latencies.sort()
    return {
        "machines": machines, "started_s": started_s, "running_s": running_s, "rss_mib": rss, "peak_mib": peak,
        "query_s": query_s, "query_again_s": again_s, "query_failures": len(query_failures) + len(again_failures),
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))],
        "task_timeouts": histories.workflow_task_timeouts, "task_failures": histories.workflow_task_failures,
        "sticky_timeouts": histories.sticky_task_timeouts,
        "events_per_machine": histories.per("events"), "events_per_check": per_check,
    }


def rows(r: dict[str, float], cache: int, tasks: int, polls: int) -> list[dict[str, object]]:
    n = int(r["machines"])
    settings = f"max_cached_workflows {cache}, max_concurrent_workflow_tasks {tasks}, workflow_task_polls {polls}"
    checks_now, checks_before = DAY / HEALTH_CHECK_INTERVAL, DAY / BEFORE_SWEEP_INTERVAL
    return [
        row(f"worker RSS, {n:,} machines Running", round(r["rss_mib"]), "MiB", "< 2048 MiB at 10,000", None,
            f"peak {r['peak_mib']:.0f} MiB; {settings}"),
        row(f"workflow task timeouts + failures, {n:,} machines", r["task_timeouts"] + r["task_failures"], "tasks",
            "0", None, f"{r['task_timeouts']:.0f} timeouts ({r['sticky_timeouts']:.0f} of them a sticky queue's "
            f"schedule-to-start), {r['task_failures']:.0f} failures, from every history"),
        row(f"all {n:,} answer `status`", round(r["query_s"], 1), "s", None, None,
            f"100 at a time: p50 {r['p50_ms']:.0f} ms, p99 {r['p99_ms']:.0f} ms; again {r['query_again_s']:.1f} s; "
            f"{r['query_failures']:.0f} of the 2 x {n:,} queries timed out"),
        row(f"{n:,} machines started -> all Running", round(r["running_s"], 1), "s", None, None,
            f"starts sent in {r['started_s']:.1f} s, 50 at a time; {r['events_per_machine']:.0f} events each"),
        row("history growth of a Running machine", round(r["events_per_check"] * checks_now), "events/day", None,
            f"10-min checks {r['events_per_check'] * checks_before:,.0f}/day",
            f"{r['events_per_check']:.0f} events a health check, every {HEALTH_CHECK_INTERVAL} "
            "(the fleet sweep adds none to a machine that did not drift)"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.splitlines()[0])
    parser.add_argument("--machines", type=int, default=DEFAULT_MACHINES)
    parser.add_argument("--cache", type=int, default=MAX_CACHED_WORKFLOWS, help="the worker's max_cached_workflows")
    parser.add_argument("--workflow-tasks", type=int, default=MAX_CONCURRENT_WORKFLOW_TASKS)
    args = parser.parse_args()
    env = {"AZMC_MAX_CACHED_WORKFLOWS": str(args.cache), "AZMC_MAX_CONCURRENT_WORKFLOW_TASKS": str(args.workflow_tasks)}
    with tempfile.TemporaryDirectory(prefix="azmc-scale-") as tmp:
        processes = start_processes(Path(tmp), bare=False, worker_env=env)
        try:
            result = asyncio.run(measure(processes, args.machines))
        finally:
            processes.stop()
    table = rows(result, args.cache, args.workflow_tasks, Settings().workflow_task_polls)
    for entry in table:
        print(f"  {entry['metric']}: {entry['value']} {entry['unit']} ({entry['note']})")
    name = (f"scale_{args.machines}" + ("" if args.cache == MAX_CACHED_WORKFLOWS else f"_cache{args.cache}")
            + ("" if args.workflow_tasks == MAX_CONCURRENT_WORKFLOW_TASKS else f"_tasks{args.workflow_tasks}"))
    write_results("scale" if name == f"scale_{DEFAULT_MACHINES}" else name, table)


if __name__ == "__main__":
    main()
