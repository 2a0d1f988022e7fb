"""How fast a pool rolls, against the bound its strategy sets, and what it costs the pool's own history.

`python -m bench.pool_rollout [--machines 100] [--max-surge 10]`, on one dev server with one `azmc worker`
(emulator at time scale 0):
- one wave: a pool scaled from 0 to `max_surge` machines (all created side by side) - how long one batch
  of new machines takes to be Running;
- the lower bound of a rolling update with max_unavailable 0: ceil(machines / max_surge) waves one after
  the other (a wave of old machines may go only once its new ones are available);
- the rollout itself: `set_template` on a pool of `machines`, until every machine runs the new revision
  (the old ones deleted), its time and its ratio to the bound;
- the pool workflow's history events per machine rolled (all its runs: it continues as new on the way).
Writes bench/results/pool_rollout.json; printed, never asserted: this is not a timed test.
"""

import argparse
import asyncio
import math
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.service import RPCError

from bench.results_file import write_results
from bench.stack import rss_mib, start_processes
from cli.pool_workflow import apply_pool, request_delete, scale, set_template, status
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, seed_subnet_id
from models.naming import pool_workflow_id
from models.pool import PoolSpec, PoolStatus
from models.status import Phase
from workers.connect import connect
from workers.settings import TASK_QUEUE, load_settings

MODULE = "pool_rollout"
POOL = "bench"


def pool_spec(replicas: int, max_surge: int, version: str, name: str = POOL,
              vm_size: str = "Standard_D2s_v5") -> PoolSpec:
    return PoolSpec.model_validate({
        "name": name, "resource_group": SEED_RESOURCE_GROUP, "replicas": replicas,
        "strategy": {"max_surge": max_surge, "max_unavailable": 0},
        "template": {"location": SEED_LOCATION, "vm_size": vm_size, "subnet_id": seed_subnet_id(),
                     # The version names the image too: a tag change alone would be applied in place, not rolled.
                     "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server",
                               "version": f"24.04.{version}"},
                     "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBench bench",
                     "tags": {"version": version}}})


def lower_bound_s(machines: int, max_surge: int, wave_s: float) -> float:
    """A rolling update with max_unavailable 0 replaces at most max_surge machines at a time."""
    return math.ceil(machines / max_surge) * wave_s


def settled(replicas: int, revision: str) -> Callable[[PoolStatus], bool]:
    def accept(current: PoolStatus) -> bool:
        return (len(current.machines) == current.available == replicas and current.current_revision == revision
                and all(m.phase == Phase.RUNNING and m.revision == revision for m in current.machines))
    return accept


async def _status(client: Client, wf_id: str) -> PoolStatus:
    """The pool's status; a query the busy pool did not answer in time is asked again (a fleet of 1,000 keeps
    its worker busy for seconds at a time)."""
    for _ in range(10):
        try:
            return await status(client, wf_id)
        except RPCError as error:
            print(f"    status of {wf_id} not answered ({error}); asking again", flush=True)
            await asyncio.sleep(5.0)
    return await status(client, wf_id)


async def until(client: Client, wf_id: str, accept: Callable[[PoolStatus], bool], label: str = "",
                timeout_s: float = 1800, poll_s: float = 0.25, progress_s: float = 30.0) -> PoolStatus:
    """Poll the pool's status until `accept`; with a `label`, its progress every `progress_s`."""
    began = last = time.monotonic()
    while not accept(current := await _status(client, wf_id)):
        now = time.monotonic()
        if now - began > timeout_s:
            raise TimeoutError(f"pool {wf_id} {label}: not done within {timeout_s:.0f} s: {current.summary}")
        if label and now - last >= progress_s:
            running = sum(m.phase == Phase.RUNNING for m in current.machines)
            print(f"    {label}: {now - began:.0f} s, {len(current.machines)} machines, {running} Running; "
                  f"{current.summary}", flush=True)
            last = now
        await asyncio.sleep(poll_s)
    return current


async def pool_events_between(client: Client, wf_id: str, start: datetime, end: datetime) -> tuple[int, int]:
    """History events of every run of the pool's workflow in [start, end], and how many runs that spans."""
    events = runs = 0
    async for execution in client.list_workflows(f"WorkflowId = '{wf_id}'"):
        counted = 0
        async for event in client.get_workflow_handle(wf_id, run_id=execution.run_id).fetch_history_events():
            counted += start <= event.event_time.ToDatetime(tzinfo=UTC) <= end
        events += counted
        runs += counted > 0
    return events, runs


async def measure(address: str, machines: int, max_surge: int, worker_pid: int) -> list[dict[str, Any]]:
    client = await connect(load_settings(temporal_address=address))
    wf_id = pool_workflow_id(SEED_RESOURCE_GROUP, POOL)
    first = pool_spec(max_surge, max_surge, "1")
    await apply_pool(client, first, TASK_QUEUE)  # a first wave and its deletion warm the worker up, unmeasured
    await until(client, wf_id, settled(max_surge, first.revision))
    await scale(client, wf_id, 0)
    await until(client, wf_id, settled(0, first.revision))
    began = time.monotonic()
    await scale(client, wf_id, max_surge)
    await until(client, wf_id, settled(max_surge, first.revision))
    wave_s = time.monotonic() - began
    began = time.monotonic()
    await scale(client, wf_id, machines)
    await until(client, wf_id, settled(machines, first.revision))
    scale_s = time.monotonic() - began

    second = pool_spec(machines, max_surge, "2")
    started_at, began = datetime.now(UTC), time.monotonic()
    await set_template(client, wf_id, second)
    await until(client, wf_id, settled(machines, second.revision))
    roll_s, ended_at = time.monotonic() - began, datetime.now(UTC)
    events, runs = await pool_events_between(client, wf_id, started_at, ended_at)
    _, peak = rss_mib(worker_pid)
    await request_delete(client, wf_id, "bench done")
    await client.get_workflow_handle(wf_id).result()

    bound = lower_bound_s(machines, max_surge, wave_s)
    waves = math.ceil(machines / max_surge)
    print(f"pool rollout benchmark: {machines} machines, max_surge {max_surge}, max_unavailable 0, emulator time "
          "scale 0, one dev server, one azmc worker")
    print(f"  one wave ({max_surge} machines created side by side): {wave_s:.1f} s")
    print(f"  scale {max_surge} -> {machines}: {scale_s:.1f} s")
    print(f"  rolling update of {machines}: {roll_s:.1f} s; lower bound {waves} waves x {wave_s:.1f} s = "
          f"{bound:.1f} s; ratio {roll_s / bound:.2f}")
    print(f"  pool history: {events} events over {runs} runs = {events / machines:.1f} events per machine rolled")
    print(f"  azmc worker peak RSS: {peak:.0f} MiB")
    setup = f"{machines} machines, max_surge {max_surge}, max_unavailable 0, emulator time scale 0"
    return [
        {"metric": "pool rolling update", "value": round(roll_s, 1), "unit": "s", "goal": None, "peer": None,
         "note": setup},
        {"metric": "pool rollout / max_surge lower bound", "value": round(roll_s / bound, 2), "unit": "x",
         "goal": "<= 2", "peer": None,
         "note": f"bound = ceil({machines}/{max_surge}) waves x {wave_s:.1f} s (one wave of {max_surge} measured)"},
        {"metric": "pool history events per machine rolled", "value": round(events / machines, 1),
         "unit": "events", "goal": None, "peer": None,
         "note": f"{events} events of the MachinePool workflow over {runs} runs (continue-as-new included)"},
        {"metric": f"pool scale {max_surge} -> {machines}", "value": round(scale_s, 1), "unit": "s", "goal": None,
         "peer": None, "note": "machines created side by side"},
    ]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pool_rollout", description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=100)
    parser.add_argument("--max-surge", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="azmc-bench-pool-") as tmp:
        processes = start_processes(Path(tmp), bare=False, wait_for_worker=True)
        try:
            rows = asyncio.run(measure(processes.address, args.machines, args.max_surge, processes.worker_pid()))
        finally:
            processes.stop()
    print(f"  wrote {write_results(MODULE, rows)}")


if __name__ == "__main__":
    main()
