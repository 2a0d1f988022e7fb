"""How much azmc adds over the Temporal engine, measured side by side in one run on one dev server.

`python -m bench.lifecycle [--machines 200] [--fleet 1000]`:
- N machines created -> Running -> deleted (emulator at time scale 0) by an `azmc worker` process;
- N bare workflows of the same shape (as many no-op activities before and after a `delete` signal as a
  machine ran) by a worker process of bench/bare.py, on the same server;
- machines/s, the bare rate, their ratio (goal >= 0.8), ARM requests and activities per machine,
  the azmc worker's peak RSS; then (unless --fleet 0) the worker's RSS with `--fleet` machines Running
  at once (goal under 1 GiB). Printed, never asserted: this is not a timed test.
"""

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from bench.bare import TASK_QUEUE as BARE_QUEUE
from bench.bare import BareInput
from bench.results_file import row, write_results
from cli.dev_stack import search_attribute_flags
from cli.emulator_client import EmulatorControl
from cli.machines import apply
from cli.processes import Child, free_port, http_ok, tcp_open, temporal_binary
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, seed_subnet_id
from models.naming import machine_of, workflow_id
from models.spec import MachineSpec
from workers.settings import TASK_QUEUE
from workflows.api import DELETE_SIGNAL, WORKFLOW_TYPE
from workflows.search_attributes import AZMC_PHASE

ROOT = Path(__file__).resolve().parents[1]
_ENV = {"PYTHONPATH": str(ROOT)}


def _spec(name: str) -> MachineSpec:
    return MachineSpec.model_validate({
        "name": name, "resource_group": SEED_RESOURCE_GROUP, "location": SEED_LOCATION,
        "vm_size": "Standard_D2s_v5", "subnet_id": seed_subnet_id(),
        "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
        "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBench bench",
    })  # fmt: skip


def rss_mib(pid: int) -> tuple[float, float]:
    """(current, peak) resident set size of a process, from /proc."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Processes:
    server: Child
    emulator: Child
    azmc_worker: Child
    bare_worker: Child
    address: str
    emulator_url: str

    def stop(self) -> None:
        for child in (self.azmc_worker, self.bare_worker, self.emulator, self.server):
            child.stop()

    def cpu(self) -> dict[str, float]:
        children = {"server": self.server, "emulator": self.emulator, "azmc worker": self.azmc_worker,
                    "bare worker": self.bare_worker}  # fmt: skip
        return {name: cpu_seconds(child.process.pid) for name, child in children.items() if child.process}


def _cpu_line(before: dict[str, float], after: dict[str, float]) -> str:
    return ", ".join(f"{name} {after[name] - before[name]:.1f}" for name in after)


def start_processes(logs: Path) -> Processes:
    port, emulator_port = free_port(), free_port()
    address, emulator_url = f"127.0.0.1:{port}", f"http://127.0.0.1:{emulator_port}"
    server_argv = [temporal_binary(), "server", "start-dev", "--ip", "127.0.0.1", "--port", str(port), "--headless",
                   "--log-level", "error", *search_attribute_flags()]  # fmt: skip
    server = Child("temporal", server_argv, logs / "temporal.log")
    emulator = Child("emulator", [sys.executable, "-m", "emulator", "--port", str(emulator_port), "--time-scale", "0",
                                  "--seed"], logs / "emulator.log", env=_ENV)  # fmt: skip
    server.start()
    emulator.start()
    server.wait_ready(lambda: tcp_open(port), 60)
    emulator.wait_ready(lambda: http_ok(f"{emulator_url}/_emulator/health"), 30)
    time.sleep(1.0)  # the frontend accepts connections a moment before the namespace is served
    azmc_env = {**_ENV, "AZMC_TEMPORAL_ADDRESS": address, "AZMC_AZURE_ENDPOINT": emulator_url, "AZMC_METRICS_PORT": "0"}
    azmc_worker = Child("azmc worker", [sys.executable, "-m", "cli", "worker"], logs / "worker.log", env=azmc_env)
    bare_worker = Child("bare worker", [sys.executable, "-m", "bench.bare", "--address", address],
                        logs / "bare.log", env=_ENV)  # fmt: skip
    azmc_worker.start()
    bare_worker.start()
    return Processes(server, emulator, azmc_worker, bare_worker, address, emulator_url)


async def _count(client: Client, query: str) -> int:
    return (await client.count_workflows(query)).count


async def _wait_count(client: Client, query: str, target: int, timeout_s: float = 900) -> None:
    deadline = time.monotonic() + timeout_s
    while await _count(client, query) != target:
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {target} x {query}")
        await asyncio.sleep(0.2)


async def _bounded(jobs: list[Callable[[], Coroutine[Any, Any, Any]]], limit: int = 50) -> None:
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        async with gate:
            await job()

    await asyncio.gather(*(one(job) for job in jobs))


def _machine_prefix(name_prefix: str) -> str:
    """The workflow id prefix of the bench's machines named `name_prefix...` in the seed resource group."""
    return workflow_id(SEED_RESOURCE_GROUP, name_prefix)


def _name(wf_id: str) -> str:
    machine = machine_of(wf_id)
    assert machine is not None, wf_id
    return machine[1]


async def lifecycle_run(client: Client, kind: str, ids: list[str], start: Callable[[str], Coroutine[Any, Any, Any]],
                        tag: str) -> float:  # fmt: skip
    """Start all, wait until all are Running, signal delete to all, wait until all completed: seconds taken."""
    running = f"WorkflowType = '{kind}' AND ExecutionStatus = 'Running'"
    phase_running = f"{AZMC_PHASE.name} = 'Running'"
    began = time.monotonic()
    await _bounded([lambda wf_id=wf_id: start(wf_id) for wf_id in ids])
    await _wait_count(client, f"{running} AND {phase_running} AND WorkflowId STARTS_WITH '{tag}'", len(ids))
    await _bounded([lambda wf_id=wf_id: client.get_workflow_handle(wf_id).signal(DELETE_SIGNAL) for wf_id in ids])
    await _wait_count(client, f"{running} AND WorkflowId STARTS_WITH '{tag}'", 0)
    return time.monotonic() - began


async def activities_per_machine(client: Client, ids: list[str]) -> tuple[float, float]:
    """Average activities scheduled before and after the `delete` signal, over the given workflows."""
    before = after = 0
    for wf_id in ids:
        signalled = False
        async for event in client.get_workflow_handle(wf_id).fetch_history_events():
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
                signalled = True
            elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
                after += signalled
                before += not signalled
    return before / len(ids), after / len(ids)


async def measure(processes: Processes, machines: int, fleet: int) -> None:
    client = await Client.connect(processes.address, data_converter=pydantic_data_converter)
    emulator = EmulatorControl(processes.emulator_url)

    def machine_start(prefix: str) -> Callable[[str], Coroutine[Any, Any, Any]]:
        return lambda wf_id: apply(client, _spec(_name(wf_id)), TASK_QUEUE)

    # Warm-up (imports, caches, connections) on both workers, not measured.
    warm = [workflow_id(SEED_RESOURCE_GROUP, f"warm-{i}") for i in range(5)]
    await lifecycle_run(client, WORKFLOW_TYPE, warm, machine_start("warm"), _machine_prefix("warm-"))
    create_k, delete_k = await activities_per_machine(client, warm)
    bare_input = BareInput(create_activities=round(create_k), delete_activities=round(delete_k))

    async def bare_start(wf_id: str) -> None:
        await client.start_workflow("BareLifecycle", bare_input, id=wf_id, task_queue=BARE_QUEUE)

    await lifecycle_run(client, "BareLifecycle", [f"bare/warm-{i}" for i in range(5)], bare_start, "bare/warm-")

    before, cpu_0 = emulator.requests()["by_operation"], processes.cpu()
    ids = [workflow_id(SEED_RESOURCE_GROUP, f"bench-{i:04d}") for i in range(machines)]
    azmc_s = await lifecycle_run(client, WORKFLOW_TYPE, ids, machine_start("bench"), _machine_prefix("bench-"))
    after, cpu_1 = emulator.requests()["by_operation"], processes.cpu()
    bare_ids = [f"bare/run-{i:04d}" for i in range(machines)]
    bare_s = await lifecycle_run(client, "BareLifecycle", bare_ids, bare_start, "bare/run-")
    cpu_2 = processes.cpu()

    create_k, delete_k = await activities_per_machine(client, ids[:20])
    requests = {op: after[op] - before.get(op, 0) for op in after}
    polls = requests.pop("operations.get", 0)
    _, peak = rss_mib(processes.azmc_worker.process.pid)  # type: ignore[union-attr]
    azmc_rate, bare_rate = machines / azmc_s, machines / bare_s
    print(f"azmc lifecycle benchmark: {machines} machines, emulator time scale 0, one dev server, one worker each")
    print(f"  azmc:   {machines} machines created -> Running -> deleted in {azmc_s:.1f} s = {azmc_rate:.2f} machines/s")
    print(f"  bare:   {machines} workflows, {bare_input.create_activities} + {bare_input.delete_activities} no-op "
          f"activities around a signal, in {bare_s:.1f} s = {bare_rate:.2f} workflows/s")  # fmt: skip
    print(f"  ratio:  {azmc_rate / bare_rate:.2f} (goal >= 0.8)")
    print(f"  ARM requests per machine: {sum(requests.values()) / machines:.1f} "
          f"(+ {polls / machines:.1f} operation-status polls): "
          + ", ".join(f"{op} {count / machines:.1f}" for op, count in sorted(requests.items()) if count))
    print(f"  activities per machine: {create_k:.1f} to create + {delete_k:.1f} to delete")
    print(f"  azmc worker peak RSS: {peak:.0f} MiB")
    print(f"  CPU seconds in the azmc run: {_cpu_line(cpu_0, cpu_1)}")
    print(f"  CPU seconds in the bare run: {_cpu_line(cpu_1, cpu_2)}")
    rows = [
        row("azmc lifecycle rate (create -> Running -> delete)", round(azmc_rate, 2), "machines/s", None,
            f"bare {bare_rate:.2f}/s", f"{machines} machines, emulator time scale 0"),
        row("lifecycle rate / bare workflow rate", round(azmc_rate / bare_rate, 2), "", ">= 0.8", "bare 1.0",
            f"bare: {bare_input.create_activities} + {bare_input.delete_activities} no-op activities, same run"),
        row("azmc worker peak RSS (lifecycle run)", round(peak), "MiB"),
    ]
    if fleet:
        rss, fleet_peak = await fleet_rss(client, processes, fleet, machine_start("fleet"))
        rows.append(row(f"azmc worker RSS, {fleet:,} machines Running", round(rss), "MiB", "< 1024 MiB", None,
                        f"peak {fleet_peak:.0f} MiB"))
    write_results("lifecycle", rows)


async def fleet_rss(client: Client, processes: Processes, fleet: int,
                    start: Callable[[str], Coroutine[Any, Any, Any]]) -> tuple[float, float]:  # fmt: skip
    ids = [workflow_id(SEED_RESOURCE_GROUP, f"fleet-{i:04d}") for i in range(fleet)]
    began = time.monotonic()
    await _bounded([lambda wf_id=wf_id: start(wf_id) for wf_id in ids])
    query = f"WorkflowType = '{WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND {AZMC_PHASE.name} = 'Running'"
    await _wait_count(client, f"{query} AND WorkflowId STARTS_WITH '{_machine_prefix('fleet-')}'", fleet)
    await asyncio.sleep(2)  # let the worker settle with every machine Running (and cached)
    rss, peak = rss_mib(processes.azmc_worker.process.pid)  # type: ignore[union-attr]
    print(f"  fleet:  {fleet} machines Running at once after {time.monotonic() - began:.0f} s: azmc worker RSS "
          f"{rss:.0f} MiB, peak {peak:.0f} MiB (goal < 1024 MiB)")  # fmt: skip
    return rss, peak


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.lifecycle", description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=200)
    parser.add_argument("--fleet", type=int, default=1000, help="machines Running at once for the RSS check; 0 skips")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="azmc-bench-") as tmp:
        processes = start_processes(Path(tmp))
        try:
            asyncio.run(measure(processes, args.machines, args.fleet))
        finally:
            processes.stop()


if __name__ == "__main__":
    main()
