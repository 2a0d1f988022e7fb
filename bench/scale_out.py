"""Several `azmc worker` processes on one task queue sharing a fleet: the rate with 1, 2 and 3 workers, then a fleet
at Azure's limits with one worker killed and restarted mid-run.

`python -m bench.scale_out [--machines 10000] [--workers 3] [--speed 1] [--stage rate|fleet]`, on one dev server:
- rate: machines created -> Running -> deleted (emulator at time scale 0, Azure's budgets lifted, as bench.lifecycle)
  with 1 worker, then 2, then 3, `--rounds` times (`--rate-machines` a batch, default a twentieth of `--machines`,
  200 at least: fewer finish in one machine's own time, whatever the workers): machines a second, the CPU each
  process used and how busy the machine's cores were, so the table says what bounds the rate on this machine;
- fleet: a second emulator enforcing Azure's budgets (`--limits azure`, realistic latency), `--workers` workers at
  their default paces (x `--speed`, budgets too, as bench.fleet_churn), each caching its share of the fleet and a
  fifth more (`--cache`). A tenth of the machines are a pool, the rest single machines checking their VM every
  `--check-every` (default: their checks take a quarter of ARM's read pace).
  Creates all of them, SIGKILLs one worker once half are Running and starts it again 10 s later; holds while every
  machine checks its VM at least once; asks every machine for `status`; rolls the pool to a new template; deletes
  everything. Then: nothing left open or in Azure, the 429s the emulator answered (goal 0: the fleet-wide paces hold
  across workers), the workflow task failures the workers counted (goal 0), each worker's peak RSS.
Each stage prints its progress every 30 s and keeps its result in .azmc/bench/ when done: run again, a stopped run
does only the stage it lacks (`--stage` runs one again). With both it writes bench/results/scale_out.json
(scale_out_<N>[_x<speed>].json for another `--machines` or `--speed`). At `--speed 3 --check-every 400`, 10,000
machines took 63 minutes on 2 cores (up 22 minutes at the network write pace, the roll 10, the deletes 17); at speed 1
expect about three times the Azure-bound phases. Printed, never asserted: this is not a timed test.
"""

import argparse
import asyncio
import json
import os
import signal
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.fleet_churn import Emulator, failed_tasks, scaled_budgets
from bench.fleet_churn import worker_env as paced_env
from bench.fleet_limits import azmc_rates, binding, budgets_spent
from bench.histories import task_failures_by_cause
from bench.lifecycle_runs import bench_spec, bounded, count, lifecycle_run, machine_ids, machine_starter
from bench.pool_rollout import pool_spec, settled, until
from bench.results_file import RESULTS_DIR, write_results
from bench.scale import query_all
from bench.scale_out_rows import RESTART_AFTER_S, fleet_rows, rate_rows
from bench.stack import (
    ROOT,
    cpu_seconds,
    dev_server,
    rss_mib,
    start_emulator,
    start_worker,
    started_from_now,
    wait_for_server,
)
from cli.machines import apply, request_delete
from cli.pool_workflow import apply_pool, set_template
from cli.pool_workflow import request_delete as request_pool_delete
from cli.processes import Child, free_port
from emulator.seed import SEED_RESOURCE_GROUP
from models.naming import pool_workflow_id, workflow_id
from models.pace import DEFAULT_ARM_PACES
from models.search_attributes import AZMC_PHASE
from models.temporal_api import WORKFLOW_TYPE
from workers.connect import connect
from workers.settings import TASK_QUEUE, load_settings

MODULE = "scale_out"
DEFAULT_MACHINES = 10_000
PROGRESS_S = 30.0
STATE_DIR = ROOT / ".azmc" / "bench"
OPEN = f"WorkflowType = '{WORKFLOW_TYPE}' AND ExecutionStatus = 'Running'"
MACHINE_TYPES = ("virtualMachines", "networkInterfaces", "disks")  # what a machine leaves in Azure if anything


def log(line: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {line}", flush=True)


async def wait_for(label: str, current: Callable[[], Awaitable[int]], target: int, timeout_s: float,
                   at_least: bool = False) -> float:
    """Poll `current()` until it equals `target` (or reaches it, `at_least`), printing it every PROGRESS_S; the
    seconds it took."""
    began = last = time.monotonic()
    while True:
        now_at = await current()
        if now_at == target or (at_least and now_at > target):
            return time.monotonic() - began
        if time.monotonic() - began > timeout_s:
            raise TimeoutError(f"{label}: {now_at:,} of {target:,} after {timeout_s:.0f} s")
        if time.monotonic() - last >= PROGRESS_S:
            log(f"  {label}: {now_at:,} (waiting for {target:,}) after {time.monotonic() - began:.0f} s")
            last = time.monotonic()
        await asyncio.sleep(1.0)


# --- stage 1: the rate with 1, 2, 3 workers ---------------------------------------------------------------------

def machine_busy_s() -> float:
    """CPU seconds every core of the machine has spent busy so far, whoever ran (/proc/stat)."""
    # cpu  user nice system idle iowait irq softirq steal ...: all but idle and iowait is busy.
    ticks = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


async def rate_stage(logs: Path, workers: int, batch: int, rounds: int = 3) -> dict[str, Any]:
    """`rounds` times: a batch with 1 worker, then 2, ... `workers` (the extra ones stopped between rounds), so a
    neighbour's load on a shared machine hits every count alike; each batch's rate and CPU."""
    server, address = dev_server(logs)
    server.start()
    emulator, emulator_url = start_emulator(logs, ("--time-scale", "0"), name="emulator-rate")
    wait_for_server(server, address)
    running: list[Child] = []
    batches = []
    try:
        client = await connect(load_settings(temporal_address=address))

        async def lifecycles(prefix: str, n: int) -> float:
            return await lifecycle_run(client, WORKFLOW_TYPE, machine_ids(prefix, n), machine_starter(client),
                                       workflow_id(SEED_RESOURCE_GROUP, prefix))  # fmt: skip

        for round_ in range(1, rounds + 1):
            for k in range(1, workers + 1):
                while len(running) > k:
                    running.pop().stop()
                if len(running) < k:
                    running.append(start_worker(logs / f"rate-worker-{k}.log", address, emulator_url, wait=True))
                    # Unmeasured: a new worker's first tasks import and compile what the rest reuse.
                    await lifecycles(f"warm{round_}-{k}", max(5, batch // 5))
                named = {"server": server, "emulator": emulator} | {f"worker {i + 1}": w for i, w in enumerate(running)}
                before = {name: cpu_seconds(child.process.pid) for name, child in named.items() if child.process}
                busy_before = machine_busy_s()
                seconds = await lifecycles(f"rate{round_}-{k}", batch)
                cpu = {name: cpu_seconds(child.process.pid) - before[name] for name, child in named.items()
                       if child.process}  # fmt: skip
                busy = (machine_busy_s() - busy_before) / seconds
                batches.append({"round": round_, "workers": k, "seconds": seconds, "rate": batch / seconds,
                                "cpu": cpu, "machine_busy_cores": busy})
                log(f"  round {round_}, {k} worker(s): {batch} lifecycles in {seconds:.1f} s = {batch / seconds:.1f}/s;"
                    f" cores: machine {busy:.2f} busy, " + ", ".join(f"{name} {used / seconds:.2f}"
                                                                   for name, used in cpu.items()))
    finally:
        for child in reversed([server, emulator, *running]):
            child.stop()
    return {"batch": batch, "rounds": rounds, "batches": batches}


# --- stage 2: the fleet at Azure's limits, a worker killed mid-run ----------------------------------------------

@dataclass
class Fleet:
    """The fleet stage's processes and what it learns on the way."""

    logs: Path
    address: str
    emulator: Emulator
    speed: float
    cache: int
    workers: list[Child] = field(default_factory=list)
    metrics_ports: list[int] = field(default_factory=list)
    failures_of_killed: Counter[str] = field(default_factory=Counter)
    peak_rss: list[float] = field(default_factory=list)

    def start_worker(self, index: int) -> tuple[Path, Callable[[], bool]]:
        """Worker `index` (a new one, or one started again in its place), at the default paces x speed; its log, and
        whether it said it started."""
        log_path = self.logs / f"fleet-worker-{index + 1}.log"
        said_started = started_from_now(log_path)
        env = {**paced_env(self.speed, self.metrics_ports[index]), "AZMC_MAX_CACHED_WORKFLOWS": str(self.cache)}
        child = start_worker(log_path, self.address, self.emulator.url, env)
        self.workers[index:index + 1] = [child]
        return log_path, said_started

    async def started(self, worker: tuple[Path, Callable[[], bool]], timeout_s: float = 60) -> None:
        """Until a worker `start_worker` started says it started, without holding up the event loop's other work."""
        log_path, said_started = worker
        deadline = time.monotonic() + timeout_s
        while not said_started():
            if time.monotonic() > deadline:
                raise TimeoutError(f"no worker started within {timeout_s:.0f} s; see {log_path}")
            await asyncio.sleep(0.5)

    async def kill_and_restart(self, index: int) -> None:
        """SIGKILL one worker (no graceful shutdown: its activities and sticky cache are lost), start it again."""
        self.failures_of_killed += failed_tasks(self.metrics_ports[index])
        process = self.workers[index].process
        assert process is not None
        log(f"  SIGKILL worker {index + 1} (pid {process.pid}); starting it again in {RESTART_AFTER_S:.0f} s")
        process.send_signal(signal.SIGKILL)
        process.wait()
        self.workers[index].stop()
        await asyncio.sleep(RESTART_AFTER_S)
        await self.started(self.start_worker(index))

    def task_failures(self) -> Counter[str]:
        """Every worker's failed workflow tasks by the SDK's labels (the killed worker's counted before the kill)."""
        return sum((failed_tasks(port) for port in self.metrics_ports), self.failures_of_killed.copy())


def cache_for(machines: int, workers: int) -> int:
    """Each worker's share of the fleet and a fifth more (docs/production.md, "Sizing and tuning the workers"): an
    evicted machine replays its history at every check, and 9,000 machines checking every 400 s past a cache of 1,000
    a worker replayed 22 times a second, enough on 2 cores to starve a workflow task past the SDK's 2 s limit."""
    return -(-machines * 6 // (5 * workers))


def check_every_s(machines: int, speed: float) -> int:
    """The check interval at which the machines' own VM reads take a quarter of ARM's read pace (30 s at least)."""
    return max(30, round(machines / (0.25 * DEFAULT_ARM_PACES["reads"] * speed)))


async def fleet_stage(logs: Path, machines: int, workers: int, speed: float, check_s: int, max_surge: int,
                      hold_s: float | None = None, cache: int | None = None) -> dict[str, Any]:
    """The fleet stage; `hold_s`: how long to hold while machines check their VM (default: one and a half checks);
    `cache`: each worker's AZMC_MAX_CACHED_WORKFLOWS (default: cache_for)."""
    server, address = dev_server(logs)
    server.start()
    flags = ("--time-scale", str(1 / speed), "--latency-profile", "realistic", "--limits", "azure")
    emulator_child, url = start_emulator(logs, flags, name="emulator-fleet")
    wait_for_server(server, address)
    emulator = Emulator(url)
    if speed != 1:
        emulator.call("POST", "/_emulator/settings", {"limits_overrides": scaled_budgets(speed)})
    fleet = Fleet(logs, address, emulator, speed, cache or cache_for(machines, workers), [],
                  [free_port() for _ in range(workers)])
    try:
        for index in range(workers):
            await fleet.started(fleet.start_worker(index))
        return await run_fleet(fleet, machines, check_s, max_surge, check_s * 1.5 + 30 if hold_s is None else hold_s)
    finally:
        for child in reversed([server, emulator_child, *fleet.workers]):
            child.stop()


async def run_fleet(fleet: Fleet, machines: int, check_s: int, max_surge: int, hold_s: float) -> dict[str, Any]:
    client = await connect(load_settings(temporal_address=fleet.address))
    pool_size = max(1, machines // 10)
    singles = machine_ids("fleet", machines - pool_size)
    pool_id = pool_workflow_id(SEED_RESOURCE_GROUP, "fleet")
    first = pool_spec(pool_size, max_surge, "1", name="fleet")
    timings: dict[str, float] = {}
    requests_before = fleet.emulator.requests()
    running_query = f"{OPEN} AND {AZMC_PHASE.name} = 'Running'"

    log(f"fleet: creating {len(singles):,} machines (a VM check every {check_s} s) and a pool of {pool_size:,}")
    began = time.monotonic()
    await apply_pool(client, first, TASK_QUEUE)
    spec = {"timeouts": {"health_check_interval": float(check_s)}}
    creating = asyncio.ensure_future(bounded([
        lambda wf_id=wf_id: apply(client, bench_spec(wf_id.rsplit("/", 1)[1], **spec), TASK_QUEUE)  # type: ignore[misc]  # mypy cannot type a lambda's default argument
        for wf_id in singles]))  # fmt: skip
    timeout_s = 7200 + machines * 2.0
    await wait_for("Running, before the kill", lambda: count(client, running_query), machines // 2, timeout_s,
                   at_least=True)
    await fleet.kill_and_restart(1 if len(fleet.workers) > 1 else 0)
    await creating
    await wait_for("Running", lambda: count(client, running_query), machines, timeout_s)
    timings["up"] = time.monotonic() - began
    # The busiest budget's time for the requests the creations made, at azmc's paces: the 429s below mean something
    # only if the workers ran at the budgets, which a time close to this limit shows.
    up_requests = Counter(fleet.emulator.requests()["by_operation"]) - Counter(requests_before["by_operation"])
    budget, limit_s = binding(budgets_spent(up_requests), azmc_rates(fleet.speed))
    await until(client, pool_id, settled(pool_size, first.revision), "pool up", timeout_s=3600, poll_s=5.0)

    log(f"fleet: holding {hold_s:.0f} s while every machine checks its VM")
    reads_before = fleet.emulator.requests()["by_operation"].get("virtualMachines.get", 0)
    await asyncio.sleep(hold_s)
    vm_reads = fleet.emulator.requests()["by_operation"].get("virtualMachines.get", 0) - reads_before
    fleet.peak_rss = [rss_mib(child.process.pid)[1] for child in fleet.workers if child.process]

    ids = [execution.id async for execution in client.list_workflows(OPEN)]
    log(f"fleet: asking all {len(ids):,} machines for `status`")
    query_s, latencies, first_failures = await query_all(client, ids, progress=log)
    # A machine that could not answer the crowd (its replay starved: see the rows' note) is asked once more, alone.
    _, _, unanswered = await query_all(client, first_failures, concurrency=1, progress=log)

    second = pool_spec(pool_size, max_surge, "2", name="fleet")
    log(f"fleet: rolling the pool of {pool_size:,} (max_surge {second.strategy.max_surge})")
    began = time.monotonic()
    await set_template(client, pool_id, second)
    await until(client, pool_id, settled(pool_size, second.revision), "roll", timeout_s=7200, poll_s=5.0)
    timings["roll"] = time.monotonic() - began

    log("fleet: deleting everything")
    began = time.monotonic()
    await bounded([lambda wf_id=wf_id: request_delete(client, wf_id, reason="bench done") for wf_id in singles])  # type: ignore[misc]  # mypy cannot type a lambda's default argument
    await request_pool_delete(client, pool_id, "bench done")
    await wait_for("open machines", lambda: count(client, OPEN), 0, timeout_s)
    await client.get_workflow_handle(pool_id).result()
    timings["down"] = time.monotonic() - began
    left = [r for r in fleet.emulator.call("GET", "/_emulator/resources") if r["type"].split("/")[-1] in MACHINE_TYPES
            and r["name"].startswith("fleet")]  # fmt: skip
    after = fleet.emulator.requests()
    in_histories = await task_failures_by_cause(client, "")  # every workflow of the stage: machines, pool, memory
    throttled = Counter(after["throttled_by_operation"]) - Counter(requests_before["throttled_by_operation"])
    failures = fleet.task_failures()
    latencies.sort()
    return {"machines": machines, "singles": len(singles), "pool": pool_size, "max_surge": max_surge,
            "workers": len(fleet.workers), "cache": fleet.cache,
            "speed": fleet.speed, "check_s": check_s, "hold_s": hold_s, "vm_reads_in_hold": vm_reads,
            "timings": timings, "up_budget": budget, "up_limit_s": limit_s,
            "answered": len(ids) - len(unanswered), "asked": len(ids), "query_s": query_s,
            "asked_again": len(first_failures),
            "p99_ms": 1000 * latencies[int(0.99 * (len(latencies) - 1))] if latencies else 0.0,
            "throttled": sum(throttled.values()), "throttled_by_operation": dict(throttled),
            "task_failures": sum(failures.values()), "task_failure_labels": dict(failures),
            "task_failures_in_histories": dict(in_histories),
            "peak_rss_mib": fleet.peak_rss, "left": len(left),
            "open_after": await count(client, OPEN)}


# --- running it, resumably --------------------------------------------------------------------------------------

def state_path(machines: int, workers: int, speed: float) -> Path:
    return STATE_DIR / f"{MODULE}_{machines}_w{workers}_x{speed:g}.json"


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.scale_out", description=__doc__.splitlines()[0])
    parser.add_argument("--machines", type=int, default=DEFAULT_MACHINES)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--speed", type=float, default=1.0, help="Azure's budgets, azmc's paces and latency x this")
    parser.add_argument("--rate-machines", type=int, help="machines per batch of the rate stage (default machines/20)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of the rate stage (1, 2, 3 workers each)")
    parser.add_argument("--check-every", type=int, help="seconds between a machine's VM checks (default: see above)")
    parser.add_argument("--max-surge", type=int, help="the pool's max_surge when it rolls (default: a tenth of it)")
    parser.add_argument("--cache", type=int, help="each fleet worker's cached machines (default: its share + a fifth)")
    parser.add_argument("--stage", choices=("rate", "fleet"), help="run this stage again (default: the ones not done)")
    parser.add_argument("--logs", type=Path, help="keep the processes' logs here (default: a folder removed after)")
    args = parser.parse_args()
    path = state_path(args.machines, args.workers, args.speed)
    done: dict[str, Any] = json.loads(path.read_text()) if path.is_file() else {}
    stages = [args.stage] if args.stage else [stage for stage in ("rate", "fleet") if stage not in done]
    for stage in ("rate", "fleet"):
        if stage not in stages:
            log(f"stage {stage}: done earlier ({path}); `--stage {stage}` runs it again")
    with tempfile.TemporaryDirectory(prefix="azmc-bench-scale-out-") as tmp:
        logs = args.logs or Path(tmp)
        logs.mkdir(parents=True, exist_ok=True)
        for stage in stages:
            log(f"stage {stage}: {args.workers} workers, logs in {logs}")
            if stage == "rate":
                batch = args.rate_machines or max(200, args.machines // 20)
                done["rate"] = asyncio.run(rate_stage(logs, args.workers, batch, args.rounds))
            else:
                check_s = args.check_every or check_every_s(args.machines - args.machines // 10, args.speed)
                surge = args.max_surge or max(1, args.machines // 100)
                done["fleet"] = asyncio.run(fleet_stage(logs, args.machines, args.workers, args.speed, check_s, surge,
                                                        cache=args.cache))
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(done, indent=2) + "\n")
            log(f"stage {stage}: done, kept in {path}")
    rows = rate_rows(done["rate"]) + fleet_rows(done["fleet"])
    for entry in rows:
        print(f"  {entry['metric']}: {entry['value']} {entry['unit']} ({entry['note']})")
    name = (MODULE + ("" if args.machines == DEFAULT_MACHINES else f"_{args.machines}")
            + ("" if args.speed == 1 else f"_x{args.speed:g}"))
    print(f"  wrote {write_results(name, rows, RESULTS_DIR)}")


if __name__ == "__main__":
    main()
