"""Why a pool's status was slow while it deleted its machines, and what answers it now.

`python -m bench.status_latency [--machines 100]`, on one dev server with one `azmc worker` at its default paces and
the emulator as `azmc dev` runs it (realistic latency, time scale 0.1): a pool of `machines` Running beside a pool of
one, then the big one deleted. Idle and during the deletion, every half second, side by side:
- the busy pool's `status` query, and the idle pool's on the same worker (the difference is the busy pool's own
  workflow tasks, which the server makes a query wait for), and a describe of the busy pool (the server alone);
- what `azmc pool get` and `azmc pool describe` ask, in process (list_pools, described: cli/pool/headline.py);
- one at a time, as an operator runs them: `azmc pool get`, `azmc pool describe`, and `azmc --help` (the process
  alone: on two shared cores its start-up is most of a command's time when the machine is busy);
- the worker's free workflow-task slots (its Prometheus metrics), and from history how long the busy pool's
  workflow tasks waited to start.
Writes bench/results/status_latency.json; printed, never asserted: this is not a timed test.
"""

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from bench.fleet_churn import worker_env
from bench.pool_rollout import pool_spec, settled, until
from bench.results_file import row, write_results
from bench.stack import start_processes
from bench.worker_metrics import read_samples
from cli.pool.headline import described
from cli.pool.lookup import list_pools
from cli.pool_workflow import apply_pool, request_delete, status
from cli.processes import free_port
from emulator.seed import SEED_RESOURCE_GROUP
from models.naming import pool_workflow_id
from workers.connect import connect
from workers.settings import TASK_QUEUE, load_settings

MODULE = "status_latency"
EMULATOR = ("--time-scale", "0.1", "--latency-profile", "realistic")  # as `azmc dev` runs it
ROOT = Path(__file__).resolve().parents[1]
BUSY, QUIET = "bench", "quiet"
_SLOTS = "temporal_worker_task_slots_available"
# (key, what) of every timing, in the order printed.
TIMINGS = (("busy", "the busy pool's `status` query"), ("quiet", "an idle pool's `status` query, same worker"),
           ("server", "a describe of the busy pool (the server alone)"),
           ("list_pools", "`azmc pool get`'s calls, in process"),
           ("described", "`azmc pool describe`'s calls, in process"),
           ("pool get", "`azmc pool get`"), ("pool describe", "`azmc pool describe`"),
           ("--help", "`azmc --help` (the process alone)"))


def free_workflow_slots(metrics_url: str) -> int | None:
    """The worker's free workflow-task slots (its Prometheus metrics), None when not read."""
    try:
        found = read_samples(metrics_url, timeout_s=5)
    except OSError:
        return None
    for sample in found:
        labels = sample.labels
        if sample.name == _SLOTS and (labels.get("worker_type"), labels.get("task_queue")) == ("WorkflowWorker",
                                                                                              TASK_QUEUE):
            return int(sample.value)
    return None


async def _timed(call: Awaitable[Any]) -> float:
    began = time.monotonic()
    try:
        await asyncio.wait_for(call, timeout=60)
    except Exception as error:  # not answered: its time is how long it was waited for
        print(f"    {type(error).__name__}: {str(error)[:120]}", flush=True)
    return time.monotonic() - began


async def _cli(address: str, *args: str) -> float:
    """Seconds an `azmc` command takes as an operator runs it (a process of its own)."""
    env = {**os.environ, "AZMC_TEMPORAL_ADDRESS": address, "PYTHONPATH": str(ROOT)}
    began = time.monotonic()
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "cli", *args, env=env,
                                                   stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    _, err = await process.communicate()
    if process.returncode:
        print(f"    azmc {' '.join(args)} exited {process.returncode}: {err.decode()[-200:]}", flush=True)
    return time.monotonic() - began


async def _described(client: Client, wf_id: str) -> float:
    """`azmc pool describe`'s calls; 1 when the server answered for the busy pool (its own answer did not come)."""
    _, note = await described(client, wf_id, SEED_RESOURCE_GROUP, BUSY)
    return 1.0 if note else 0.0


async def in_process(client: Client) -> dict[str, float]:
    busy_id, quiet_id = (pool_workflow_id(SEED_RESOURCE_GROUP, name) for name in (BUSY, QUIET))
    began = time.monotonic()
    answered = asyncio.ensure_future(_described(client, busy_id))
    timings = await asyncio.gather(
        _timed(status(client, busy_id)), _timed(status(client, quiet_id)),
        _timed(client.get_workflow_handle(busy_id).describe()), _timed(list_pools(client)), _timed(answered))
    found = dict(zip(("busy", "quiet", "server", "list_pools", "described"), timings, strict=True))
    if max(found.values()) > 3:
        print(f"    at {time.monotonic() - began:.1f} s: " + ", ".join(f"{k} {v:.2f}" for k, v in found.items()),
              flush=True)
    return {**found, "by server": answered.result() if answered.done() and not answered.exception() else 0.0}


async def commands(address: str) -> dict[str, float]:
    """One after the other, as an operator types them."""
    return {"pool get": await _cli(address, "pool", "get"),
            "pool describe": await _cli(address, "pool", "describe", BUSY, "-g", SEED_RESOURCE_GROUP),
            "--help": await _cli(address, "--help")}


async def task_waits(client: Client, wf_id: str, since: datetime) -> list[float]:
    """Seconds from scheduled to started of every workflow task of `wf_id`'s runs since `since`."""
    waits = []
    async for execution in client.list_workflows(f"WorkflowId = '{wf_id}'"):
        scheduled = None
        async for event in client.get_workflow_handle(wf_id, run_id=execution.run_id).fetch_history_events():
            at = event.event_time.ToDatetime(tzinfo=UTC)
            if at >= since and event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
                scheduled = at
            elif at >= since and event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED and scheduled:
                waits.append((at - scheduled).total_seconds())
    return waits


async def _while(done: asyncio.Future[Any], sample: Any, into: list[dict[str, float]], pause_s: float) -> None:
    while not done.done():
        into.append(await sample())
        await asyncio.sleep(pause_s)


def _merged(samples: list[dict[str, float]], key: str) -> list[float]:
    return [s[key] for s in samples if key in s]


async def measure(address: str, replicas: int, metrics_url: str) -> list[dict[str, Any]]:
    client = await connect(load_settings(temporal_address=address))
    busy_id = pool_workflow_id(SEED_RESOURCE_GROUP, BUSY)
    quiet = pool_spec(1, 1, "1", name=QUIET)
    await apply_pool(client, quiet, TASK_QUEUE)
    await until(client, pool_workflow_id(SEED_RESOURCE_GROUP, QUIET), settled(1, quiet.revision))
    spec = pool_spec(replicas, replicas, "1", name=BUSY)
    await apply_pool(client, spec, TASK_QUEUE)
    await until(client, busy_id, settled(replicas, spec.revision), label="up", timeout_s=3600)
    idle = [await in_process(client) for _ in range(5)] + [await commands(address) for _ in range(3)]

    since, began = datetime.now(UTC), time.monotonic()
    await request_delete(client, busy_id, "bench")
    deleted = asyncio.ensure_future(client.get_workflow_handle(busy_id).result())
    busy: list[dict[str, float]] = []
    slots: list[dict[str, float]] = []

    async def slots_now() -> dict[str, float]:
        free = await asyncio.to_thread(free_workflow_slots, metrics_url)
        return {} if free is None else {"slots": free}

    await asyncio.gather(_while(deleted, lambda: in_process(client), busy, 0.5),
                         _while(deleted, lambda: commands(address), busy, 0.0),
                         _while(deleted, slots_now, slots, 0.1))
    delete_s = time.monotonic() - began
    load = os.getloadavg()[0]
    print(f"status latency: pool of {replicas} deleted in {delete_s:.0f} s beside a pool of 1; default paces, emulator "
          f"realistic x0.1; load average {load:.1f} on {os.cpu_count()} cores")
    rows = []
    for key, what in TIMINGS:
        before, during = _merged(idle, key), _merged(busy, key)
        p50, peak = statistics.median(during), max(during)
        print(f"  {what}: idle p50 {statistics.median(before):.2f} s max {max(before):.2f} s; while deleting p50 "
              f"{p50:.2f} s max {peak:.2f} s ({len(during)} samples)")
        rows.append(row(f"{what} while {replicas} machines are deleted (max)", round(peak, 2), "s",
                        "< 2" if key in ("list_pools", "described") else None,
                        note=f"p50 {p50:.2f} s; idle max {max(before):.2f} s; load average {load:.1f}"))
    by_server = _merged(busy, "by server")
    print(f"  `azmc pool describe` answered by the server in {sum(by_server):.0f} of {len(by_server)} samples")
    waits = await task_waits(client, busy_id, since)
    free = [s["slots"] for s in slots if "slots" in s]
    print(f"  the busy pool's workflow tasks while deleting: {len(waits)}, waited to start p50 "
          f"{statistics.median(waits):.2f} s, max {max(waits):.2f} s; free workflow-task slots min {min(free)}, "
          f"0 in {sum(1 for s in free if s == 0)} of {len(free)} readings")
    rows.append(row(f"the busy pool's workflow tasks, scheduled to started, while {replicas} machines are deleted "
                    "(max)", round(max(waits), 2), "s",
                    note=f"{len(waits)} tasks, p50 {statistics.median(waits):.2f} s; free workflow-task slots min "
                         f"{min(free)}, 0 in {sum(1 for s in free if s == 0)} of {len(free)} readings"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.status_latency", description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=100)
    args = parser.parse_args()
    metrics_port = free_port()
    with tempfile.TemporaryDirectory(prefix="azmc-bench-status-") as tmp:
        processes = start_processes(Path(tmp), bare=False, wait_for_worker=True, emulator_flags=EMULATOR,
                                    worker_env=worker_env(1.0, metrics_port))
        try:
            rows = asyncio.run(measure(processes.address, args.machines, f"http://127.0.0.1:{metrics_port}/metrics"))
        finally:
            processes.stop()
    print(f"  wrote {write_results(MODULE, rows)}")


if __name__ == "__main__":
    main()
