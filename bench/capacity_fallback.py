"""Capacity fallback: time to Running when one of three zones has no capacity, with and without the shared memory.

`python -m bench.capacity_fallback [--machines 20] [--time-scale 0.05] [--arrival-s 0.5]`: for each run a
fresh dev server, emulator (realistic latency x time scale, so a refused attempt costs what it costs on
Azure, scaled: a VM PUT 45 s, a failed VM's NIC reserved 180 s) and `azmc worker`; zone 1 made
unavailable; N machines with `zones: [1, 2, 3]` applied all at once (zone 1 untried, or proven by a VM
that ran there before it ran dry), then one every `--arrival-s` (zone 1 proven).
Measured per scenario, with the shared memory and without it (AZMC_SHARED_OFFERINGS=false: each machine
its own memory, learning only from its own refusal): mean time from apply to Running, the ratio
without/with, failed ARM writes per machine and failed VM PUTs in zone 1 (the emulator's counts).
Writes bench/results/capacity_fallback.json. Printed and recorded, never asserted.
"""

import argparse
import asyncio
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from bench.results_file import row, write_results
from bench.stack import start_processes
from cli.emulator_client import EmulatorControl
from cli.machines import apply
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, seed_subnet_id
from models.naming import workflow_id
from models.spec import MachineSpec
from models.status import MachineStatus
from models.temporal_api import STATUS_QUERY
from workers.settings import TASK_QUEUE

ZONES = ["1", "2", "3"]
ZONE_OUT = "1"
MEMORY_OFF = {"AZMC_SHARED_OFFERINGS": "false"}
_WRITE_VERBS = ("put", "patch", "delete", "start", "powerOff", "deallocate")


def _spec(name: str, zones: list[str] = ZONES) -> MachineSpec:
    return MachineSpec.model_validate({
        "name": name, "resource_group": SEED_RESOURCE_GROUP, "location": SEED_LOCATION,
        "vm_sizes": ["Standard_D2s_v5"], "zones": zones, "subnet_id": seed_subnet_id(),
        "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
        "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBench bench",
    })  # fmt: skip


@dataclass
class Run:
    mode: str
    all_running_s: float
    mean_running_s: float
    failed_writes: int
    failed_zone_puts: int
    machines: int


async def _phase(client: Client, spec: MachineSpec) -> str:
    handle = client.get_workflow_handle(workflow_id(spec.resource_group, spec.name))
    try:
        return str((await handle.query(STATUS_QUERY, result_type=MachineStatus)).phase)
    except Exception:  # not started yet, or the worker is still starting
        return ""


async def _apply_all(client: Client, specs: list[MachineSpec], arrival_s: float) -> dict[str, float]:
    """Apply the specs, one every `arrival_s` (0: all at once); when each was applied (monotonic)."""
    applied: dict[str, float] = {}

    async def one(index: int, spec: MachineSpec) -> None:
        await asyncio.sleep(index * arrival_s)
        applied[spec.name] = time.monotonic()
        await apply(client, spec, TASK_QUEUE)

    await asyncio.gather(*(one(index, spec) for index, spec in enumerate(specs)))
    return applied


async def time_to_running(client: Client, specs: list[MachineSpec], timeout_s: float,
                          arrival_s: float = 0.0) -> tuple[float, dict[str, float]]:
    """Apply the specs (see _apply_all); seconds until all were Running, and each one's time from its apply."""
    began = time.monotonic()
    applying = asyncio.ensure_future(_apply_all(client, specs, arrival_s))
    running: dict[str, float] = {}
    while len(running) < len(specs):
        if time.monotonic() - began > timeout_s:
            raise TimeoutError(f"only {len(running)} of {len(specs)} Running after {timeout_s:.0f} s")
        waiting = [spec for spec in specs if spec.name not in running]
        phases = await asyncio.gather(*(_phase(client, spec) for spec in waiting))
        now = time.monotonic()
        running.update({spec.name: now for spec, phase in zip(waiting, phases, strict=True) if phase == "Running"})
        await asyncio.sleep(0.1)
    applied = await applying
    return max(running.values()) - began, {name: at - applied[name] for name, at in running.items()}


def failed_writes(emulator: EmulatorControl) -> dict[str, int]:
    """Failed ARM writes (4xx/5xx answers and operations ended Failed) by operation."""
    failed = emulator.requests().get("failed_by_operation", {})
    return {operation: count for operation, count in failed.items() if operation.rsplit(".", 1)[1] in _WRITE_VERBS}


async def measure(mode: str, arrival_s: float, warm_zone: str, machines: int, time_scale: float,
                  worker_env: dict[str, str]) -> Run:
    """One run. The warm-up machine (imports, caches) runs in `warm_zone` before zone 1 runs dry: in zone 1
    it has proven zone 1 to the memory, elsewhere zone 1 is untried when the measured machines come."""
    with tempfile.TemporaryDirectory(prefix="azmc-bench-capacity-") as tmp:
        stack = start_processes(Path(tmp), bare=False, worker_env=worker_env,
                                emulator_flags=("--time-scale", str(time_scale), "--latency-profile", "realistic"))
        emulator = EmulatorControl(stack.emulator_url)
        try:
            client = await Client.connect(stack.address, data_converter=pydantic_data_converter)
            await time_to_running(client, [_spec("warm", [warm_zone])], timeout_s=300)
            entry = emulator.make_unavailable(zone=ZONE_OUT)
            before = failed_writes(emulator)
            specs = [_spec(f"cap-{i:03d}") for i in range(machines)]
            all_running, times = await time_to_running(client, specs, timeout_s=900, arrival_s=arrival_s)
            hits = next(e["hits"] for e in emulator.capacity() if e["id"] == entry)
            failed = {op: n - before.get(op, 0) for op, n in failed_writes(emulator).items()}
            print(f"  {mode}: failed writes by operation {failed}")
            return Run(mode, all_running, sum(times.values()) / machines, sum(failed.values()), hits, machines)
        finally:
            stack.stop()


def report(scenario: str, with_memory: Run, without: Run, note: str) -> list[dict[str, Any]]:
    """The rows of one scenario (machines applied at once, or one after another)."""
    per_machine = {run.mode: round(run.failed_writes / run.machines, 2) for run in (with_memory, without)}
    return [
        row(f"capacity ({scenario}): mean time to Running, with shared memory", round(with_memory.mean_running_s, 2),
            "s", note=f"{note}; all Running after {with_memory.all_running_s:.1f} s"),
        row(f"capacity ({scenario}): mean time to Running, without", round(without.mean_running_s, 2), "s",
            note=f"each machine its own memory; all Running after {without.all_running_s:.1f} s"),
        row(f"capacity ({scenario}): time to Running, without / with shared memory",
            round(without.mean_running_s / with_memory.mean_running_s, 2), "x", goal="> 1",
            peer="Karpenter (Azure): one cache per controller; CAPZ, MCM: none (retry the same offering)"),
        row(f"capacity ({scenario}): failed ARM writes per machine, with shared memory",
            per_machine[with_memory.mode], "writes", note="4xx/5xx answers and operations ended Failed"),
        row(f"capacity ({scenario}): failed ARM writes per machine, without", per_machine[without.mode], "writes"),
        row(f"capacity ({scenario}): failed VM PUTs in the zone without capacity, with shared memory",
            with_memory.failed_zone_puts, "PUTs", goal="<= 1", note=f"without: {without.failed_zone_puts}"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.capacity_fallback", description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=20)
    parser.add_argument("--time-scale", type=float, default=0.05)
    parser.add_argument("--arrival-s", type=float, default=0.5, help="seconds between applies, staggered scenario")
    args = parser.parse_args()
    setup = (f"{args.machines} machines, zones [1, 2, 3], zone 1 out; realistic latency x {args.time_scale} "
             f"(a VM PUT {45 * args.time_scale:.2f} s)")
    rows = []
    scenarios = (("at once, zone 1 untried", 0.0, "3"), ("at once, zone 1 ran dry after a VM ran there", 0.0, ZONE_OUT),
                 (f"one every {args.arrival_s:g} s, zone 1 ran dry", args.arrival_s, ZONE_OUT))
    for scenario, arrival_s, warm_zone in scenarios:
        runs = [asyncio.run(measure(mode, arrival_s, warm_zone, args.machines, args.time_scale, env))
                for mode, env in (("with shared memory", {}), ("without", MEMORY_OFF))]
        with_memory, without = runs
        rows += report(scenario, with_memory, without, note=setup)
    for entry in rows:
        print(f"  {entry['metric']}: {entry['value']} {entry['unit']}")
    print(f"written: {write_results('capacity_fallback', rows)}")


if __name__ == "__main__":
    main()
