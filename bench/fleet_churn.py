"""A fleet at Azure's real limits: a pool of 1,000 machines from zero to Running, rolled to a new template with
max_surge 100, then to zero, against the emulator enforcing Azure's budgets (`--limits azure`, realistic latency),
and a pool asked for more machines than its quota holds.

`python -m bench.fleet_churn [--machines 1000] [--max-surge 100] [--quota-machines 100] [--speed 1]`, on one dev
server and one `azmc worker` at its default paces. Each phase's time is printed beside the limit the budgets
imply: the requests the emulator counted, sorted into the budgets they spend (bench/fleet_limits.py), over the
busiest budget's rate, plus one machine's own time for that phase (measured first, alone). That limit is computed
at azmc's paces (80% of Azure's documented rates by default: the goal is within 1.2x of it) and at Azure's rates.
Also: the 429s the emulator answered, the workflow task failures the worker's metrics count and those the
histories record (by the server's cause: the SDK's counter also counts completions the server no longer took on a
busy machine), the requests per
lifecycle by kind and provider beside machine-controller-manager's, the emulator's CPU share, and in the quota
scenario the VM PUTs refused for quota (goal 0) and what the pool says of the machines that wait.

`--speed k` runs k times faster for a quick look: Azure's budgets (their periods / k), azmc's paces (x k) and the
emulator's durations (time scale 1/k) all scaled, so the ratios hold; the written results are those of speed 1.
Writes bench/results/fleet_churn.json; printed, never asserted: this is not a timed test.
"""

import argparse
import asyncio
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.client import Client

from bench.arm_requests import control
from bench.fleet_limits import (
    AZURE_RATES,
    arm_kind,
    azmc_rates,
    binding,
    budgets_spent,
    by_kind_and_provider,
    unavoidable,
)
from bench.histories import task_failures_by_cause
from bench.pool_rollout import pool_spec, settled, until
from bench.results_file import row, write_results
from bench.stack import Processes, cpu_used, pace_env, start_processes
from bench.worker_metrics import read_samples
from cli.pool_workflow import apply_pool, request_delete, scale, set_template, status
from cli.processes import free_port
from emulator.limits.profile import AZURE_BUDGETS
from emulator.seed import SEED_RESOURCE_GROUP
from models.naming import pool_workflow_id
from models.pace import DEFAULT_ARM_PACES, DEFAULT_PACES
from models.pool import PoolStatus
from models.status import Phase
from workers.connect import connect
from workers.settings import TASK_QUEUE, load_settings

MODULE = "fleet_churn"
MCM = {"reads": 10, "writes": 2, "deletes": 1}  # bench/arm_requests.py's MCM count of 13, by kind


@dataclass
class PhaseResult:
    name: str
    seconds: float
    by_operation: Counter[str]
    throttled: int
    cpu: dict[str, float]


class Emulator:
    """The emulator's control API at `url` (bench/arm_requests.py's `control`)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def call(self, method: str, path: str, body: Any = None) -> Any:
        return control(self.url, path, method, body, timeout_s=30)

    def requests(self) -> dict[str, Any]:
        return self.call("GET", "/_emulator/requests")


def worker_env(speed: float, metrics_port: int) -> dict[str, str]:
    """The default paces, times `speed` (start_processes lifts them otherwise), and the metrics endpoint."""
    paces = pace_env({budget: pace * speed for budget, pace in DEFAULT_PACES.items()},
                     {kind: pace * speed for kind, pace in DEFAULT_ARM_PACES.items()})
    return {**paces, "AZMC_METRICS_PORT": str(metrics_port)}


def scaled_budgets(speed: float) -> dict[str, dict[str, float]]:
    return {name: {"period_s": budget.period_s / speed} for name, budget in AZURE_BUDGETS.items()}


def failed_tasks(metrics_port: int) -> Counter[str]:
    """The SDK's count of failed workflow tasks on one worker, by its labels (workflow type, failure reason)."""
    found: Counter[str] = Counter()
    for sample in read_samples(f"http://127.0.0.1:{metrics_port}/metrics"):
        if sample.name.startswith("temporal_workflow_task_execution_failed"):
            kept = [f'{key}="{value}"' for key, value in sample.labels.items()
                    if key in ("workflow_type", "failure_reason")]
            found[",".join(kept)] += int(sample.value)
    return +found


def task_failures(metrics_port: int) -> int:
    """Workflow task failures the worker's SDK counted (its Prometheus endpoint)."""
    return sum(failed_tasks(metrics_port).values())


async def run_phase(processes: Processes, emulator: Emulator, name: str, action: Callable[[], Any],
                    done: Callable[[], Any]) -> PhaseResult:
    before, cpu_before, began = emulator.requests(), processes.cpu(), time.monotonic()
    await action()
    await done()
    seconds = time.monotonic() - began
    after, cpu_after = emulator.requests(), processes.cpu()
    counts = Counter(after["by_operation"]) - Counter(before["by_operation"])
    throttled = sum((Counter(after["throttled_by_operation"]) - Counter(before["throttled_by_operation"])).values())
    print(f"  {name}: {seconds:.0f} s, {sum(counts.values())} requests, {throttled} throttled", flush=True)
    print("    " + ", ".join(f"{operation} {count}" for operation, count in sorted(counts.items())), flush=True)
    return PhaseResult(name, seconds, counts, throttled, cpu_used(cpu_before, cpu_after))


def _until(client: Client, wf_id: str, accept: Callable[[PoolStatus], bool], label: str) -> Any:
    return until(client, wf_id, accept, label, timeout_s=7200, poll_s=2.0)


def floor_line(phase: str, machines: int, own_s: float, rates: dict[str, float],
               waves_s: float = 0.0) -> tuple[str, float]:
    """The phase's floor: the requests it cannot avoid (bench/fleet_limits.py `unavoidable`) at `rates`, its
    busiest budget's time plus one machine's own, or a rolling update's waves when they take longer."""
    budget, seconds = binding(unavoidable(phase, machines), rates)
    if waves_s > seconds + own_s:
        return "max_surge waves", waves_s
    return budget, seconds + own_s


def limit_line(result: PhaseResult, own_s: float, rates: dict[str, float], floor_s: float = 0.0) -> tuple[str, float]:
    """The phase's limit: its busiest budget's time plus one machine's own, or `floor_s` when that is longer
    (a rolling update's waves one after the other), and what sets it."""
    budget, seconds = binding(budgets_spent(result.by_operation), rates)
    if floor_s > seconds + own_s:
        return "max_surge waves", floor_s
    return budget, seconds + own_s


async def churn(processes: Processes, emulator: Emulator, machines: int, max_surge: int) -> dict[str, Any]:
    client = await connect(load_settings(temporal_address=processes.address))
    wf_id = pool_workflow_id(SEED_RESOURCE_GROUP, "bench")
    first, second = pool_spec(1, max_surge, "1"), pool_spec(machines, max_surge, "2")
    # One machine alone: what a phase costs beyond its budgets (Azure's provisioning, the guest's start).
    one_up = await run_phase(processes, emulator, "one machine up", lambda: apply_pool(client, first, TASK_QUEUE),
                             lambda: _until(client, wf_id, settled(1, first.revision), "one up"))
    one_down = await run_phase(processes, emulator, "one machine down", lambda: scale(client, wf_id, 0),
                               lambda: _until(client, wf_id, settled(0, first.revision), "one down"))
    up = await run_phase(processes, emulator, f"{machines} up", lambda: scale(client, wf_id, machines),
                         lambda: _until(client, wf_id, settled(machines, first.revision), "up"))
    roll = await run_phase(processes, emulator, f"{machines} rolled", lambda: set_template(client, wf_id, second),
                           lambda: _until(client, wf_id, settled(machines, second.revision), "roll"))
    down = await run_phase(processes, emulator, f"{machines} down", lambda: scale(client, wf_id, 0),
                           lambda: _until(client, wf_id, settled(0, second.revision), "down"))
    await request_delete(client, wf_id, "bench done")
    await client.get_workflow_handle(wf_id).result()
    return {"one_up": one_up, "one_down": one_down, "up": up, "roll": roll, "down": down}


QUOTA_SIZE, VCPUS = "Standard_D2as_v5", 2  # the pool over quota's size: a family of its own (standardDASv5Family)


def set_quota(emulator: Emulator, machines: int) -> int:
    """Quota for 60% of `machines` of QUOTA_SIZE, set before anything runs, so the usages reading the fleet takes
    first knows it (a quota changed after a reading is only foreseen from the next one); how many fit."""
    fits = machines * 6 // 10
    emulator.call("POST", "/_emulator/quota", {"limit_cores": fits * VCPUS, "vm_size": QUOTA_SIZE})
    return fits


async def over_quota(processes: Processes, emulator: Emulator, machines: int, fits: int) -> dict[str, Any]:
    """A pool of `machines` with quota for `fits`: what fits runs, the rest wait, no PUT refused for quota."""
    client = await connect(load_settings(temporal_address=processes.address))
    spec = pool_spec(machines, machines, "9", name="quota", vm_size=QUOTA_SIZE)
    wf_id = pool_workflow_id(SEED_RESOURCE_GROUP, "quota")

    def shows_the_wait(current: PoolStatus) -> bool:
        running = sum(m.phase == Phase.RUNNING for m in current.machines)
        waiting = sum(bool(m.waiting_for_quota) for m in current.machines)
        return running == fits and waiting == machines - fits and bool(current.quota_held)

    result = await run_phase(processes, emulator, f"{machines} over quota",
                             lambda: apply_pool(client, spec, TASK_QUEUE),
                             lambda: _until(client, wf_id, shows_the_wait, "quota"))
    shown = await status(client, wf_id)
    refused = emulator.requests()["failed_by_operation"].get("virtualMachines.put", 0)
    await request_delete(client, wf_id, "bench done")
    await client.get_workflow_handle(wf_id).result()
    return {"result": result, "machines": machines, "fits": fits, "refused": refused, "held": shown.quota_held}


async def recorded_task_failures(address: str) -> Counter[str]:
    """The workflow task failures every workflow of the run recorded (the pools, their machines, the memory)."""
    return await task_failures_by_cause(await connect(load_settings(temporal_address=address)), "")


def report(machines: int, max_surge: int, phases: dict[str, PhaseResult], quota: dict[str, Any],
           failures: int, recorded: Counter[str], wall_s: float, cpu: dict[str, float],
           speed: float) -> list[dict[str, Any]]:
    rates, rows = azmc_rates(speed), []
    azure = {name: rate * speed for name, rate in AZURE_RATES.items()}
    own = {"up": phases["one_up"].seconds, "down": phases["one_down"].seconds,
           "roll": phases["one_up"].seconds + phases["one_down"].seconds}
    print(f"\nfleet churn: {machines} machines, max_surge {max_surge}, emulator --limits azure, latency realistic "
          f"at time scale {1 / speed:g}, one dev server, one azmc worker at its default paces"
          f"{f' (x{speed:g}, budgets too)' if speed != 1 else ''}")
    # A rolling update with max_unavailable 0 replaces at most max_surge machines at a time: a wave's new machines
    # are created (one machine's time up) before its old ones go; the last wave's deletion ends it.
    waves = -(-machines // max_surge) * phases["one_up"].seconds + phases["one_down"].seconds
    floors = {"up": 0.0, "roll": waves, "down": 0.0}
    for key in ("up", "roll", "down"):
        result = phases[key]
        floor_budget, floor = floor_line(key, machines, own[key], rates, floors[key])
        budget, limit = limit_line(result, own[key], rates, floors[key])
        azure_budget, azure_limit = limit_line(result, own[key], azure, floors[key])
        print(f"  {result.name:16s} {result.seconds:7.0f} s; floor {floor:6.0f} s ({floor_budget}) ratio "
              f"{result.seconds / floor:.2f}; limit at azmc's request mix {limit:6.0f} s ({budget}) ratio "
              f"{result.seconds / limit:.2f}; at Azure's rates {azure_limit:6.0f} s ({azure_budget}) "
              f"ratio {result.seconds / azure_limit:.2f}")
        rows += [row(f"fleet {result.name}", round(result.seconds), "s", None, None,
                     f"floor {floor:.0f} s ({floor_budget}); limit at azmc's request mix {limit:.0f} s ({budget}); "
                     f"at Azure's rates {azure_limit:.0f} s"),
                 row(f"fleet {result.name} / floor", round(result.seconds / floor, 2), "x", "<= 1.2", None,
                     f"floor: the requests no design avoids ({floor_budget} binds) at azmc's paces, + one machine "
                     f"alone ({own[key]:.0f} s)"),
                 row(f"fleet {result.name} / budget limit", round(result.seconds / limit, 2), "x", None, None,
                     f"limit: {budget} at azmc's request mix and paces, + one machine alone; "
                     f"{result.seconds / azure_limit:.2f}x of Azure's rates")]
    lifecycle = phases["up"].by_operation + phases["down"].by_operation
    per_machine = {kind: count / machines for kind, count in by_kind_and_provider(lifecycle).items()}
    shown = ", ".join(f"{kind} {per_machine.get(kind, 0):.1f}" for kind in
                      ("reads", "writes", "deletes", "compute", "network", "ARM"))
    print(f"  per lifecycle (up + down): {shown}; MCM: " + ", ".join(f"{k} {v}" for k, v in MCM.items()))
    rows.append(row("fleet requests per lifecycle", round(sum(lifecycle.values()) / machines, 1), "requests", None,
                    f"MCM {sum(MCM.values())} + polls", f"{shown} (polls among the reads)"))
    reads = by_kind_and_provider(lifecycle).get("reads", 0) / machines
    rows.append(row("fleet reads per lifecycle", round(reads, 1), "reads", "<= 3", f"MCM {MCM['reads']} + polls",
                    "polls and shared status reads included: " + ", ".join(
                        f"{op} {count / machines:.2f}" for op, count in sorted(lifecycle.items())
                        if arm_kind(op) == "ARM reads")))
    throttled = sum(result.throttled for result in phases.values()) + quota["result"].throttled
    in_histories = ", ".join(f"{count} {cause}" for cause, count in recorded.most_common()) or "none"
    print(f"  429s answered: {throttled}; workflow task failures: {failures} counted by the SDK, "
          f"{sum(recorded.values())} in the histories ({in_histories})")
    rows += [row("fleet 429s", throttled, "answers", "0", None, "every one honoured: the worker waits its "
                 "Retry-After before its kind sends again"),
             row("fleet workflow task failures", failures, "failures", "0", None,
                 f"the worker's SDK metrics; recorded in the histories: {in_histories}")]
    share = cpu.get("emulator", 0.0) / wall_s
    print(f"  CPU over {wall_s:.0f} s: " + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in cpu.items())
          + f"; the emulator {share:.0%} of a core")
    rows.append(row("fleet emulator CPU share", round(share * 100), "% of a core", "< 50", None,
                    ", ".join(f"{name} {seconds:.0f} s" for name, seconds in cpu.items()) + f" over {wall_s:.0f} s"))
    result = quota["result"]
    print(f"  over quota: {quota['fits']} of {quota['machines']} fit, Running in {result.seconds:.0f} s; "
          f"VM PUTs refused for quota: {quota['refused']}; the pool says: {quota['held']}")
    rows.append(row("fleet VM PUTs refused for quota", quota["refused"], "requests", "0", None,
                    f"quota for {quota['fits']} of {quota['machines']}; the pool: {quota['held']}"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.fleet_churn", description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=1000)
    parser.add_argument("--max-surge", type=int, default=100)
    parser.add_argument("--quota-machines", type=int, default=100)
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--logs", type=Path, help="keep the processes' logs here (default: a folder removed after)")
    args = parser.parse_args()
    metrics_port = free_port()
    with tempfile.TemporaryDirectory(prefix="azmc-bench-churn-") as tmp:
        logs = args.logs or Path(tmp)
        logs.mkdir(parents=True, exist_ok=True)
        processes = start_processes(
            logs, bare=False, wait_for_worker=True, worker_env=worker_env(args.speed, metrics_port),
            emulator_flags=("--time-scale", str(1 / args.speed), "--latency-profile", "realistic",
                            "--limits", "azure"))
        try:
            emulator = Emulator(processes.emulator_url)
            if args.speed != 1:
                emulator.call("POST", "/_emulator/settings", {"limits_overrides": scaled_budgets(args.speed)})
            fits = set_quota(emulator, args.quota_machines)
            cpu_before, began = processes.cpu(), time.monotonic()
            phases = asyncio.run(churn(processes, emulator, args.machines, args.max_surge))
            quota = asyncio.run(over_quota(processes, emulator, args.quota_machines, fits))
            wall_s, cpu = time.monotonic() - began, cpu_used(cpu_before, processes.cpu())
            recorded = asyncio.run(recorded_task_failures(processes.address))
            rows = report(args.machines, args.max_surge, phases, quota, task_failures(metrics_port), recorded,
                          wall_s, cpu, args.speed)
        finally:
            processes.stop()
    if args.speed == 1:
        print(f"  wrote {write_results(MODULE, rows)}")


if __name__ == "__main__":
    main()
