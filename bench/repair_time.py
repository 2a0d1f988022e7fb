"""Time from a guest fault to Running again, per rung of the repair ladder, against the waits it is configured with.

Run: `.venv/bin/python -m bench.repair_time [--wait-s 10] [--time-scale 0.0167]`. A dev server, the emulator
(latency profile realistic x time scale: on Azure a restart takes 30 s, a redeploy 120 s, a VM PUT 45 s) and an
`azmc worker`; one machine at a time is made Running, then its guest is broken through the control API:
- restart: `hang` (a reboot clears it);
- redeploy: `host_failure` (a new host clears it; the restart before it does not);
- recreate: a persistent `hang` (only a new VM clears it).
Each machine has timeouts.health and every step's `wait` of `--wait-s` (production's 10 min, scaled as Azure's
durations are) and a TCP probe every 5 s (the shortest period) that fails once, so the fault is seen within 5 s.
Measured from the machine's own status: fault -> Unhealthy, and Unhealthy -> Running against the waits on that
path (timeouts.health, and the wait of each step taken before the one that healed). The rest is overhead: reads,
workflow tasks, operation-status polls, and for recreate the VM's deletion and creation (Azure's own time, at
the time scale, included). Writes bench/results/repair_time.json. Printed and recorded, never asserted.
"""

import argparse
import asyncio
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from bench.arm_requests import counted
from bench.results_file import row, write_results
from bench.stack import start_processes
from cli.emulator_client import EmulatorControl
from cli.machines import apply
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, seed_subnet_id
from models.naming import workflow_id
from models.spec import MachineSpec
from models.status import MachineStatus, Phase
from models.temporal_api import STATUS_QUERY
from workers.settings import TASK_QUEUE

PROBE_PERIOD_S = 5  # the shortest a probe period may be (docs/configuration.md)
# Rung: (the fault, persistent, the waits on its path, the operation that heals it). The waits: timeouts.health,
# then each step's until the machine is read healthy (a re-created VM is Running once created: no wait after it).
RUNGS: dict[str, tuple[str, bool, int, str]] = {
    "restart": ("hang", False, 2, "virtualMachines.restart"),
    "redeploy": ("host_failure", False, 3, "virtualMachines.redeploy"),
    "recreate": ("hang", True, 3, "virtualMachines.put"),
}


@dataclass
class Rung:
    name: str
    fault: str
    waits_s: float  # the configured waits between Unhealthy and Running on this rung's path
    detected_s: float  # fault -> Unhealthy
    healed_s: float  # Unhealthy -> Running
    asked: dict[str, int]  # ARM requests from the fault to Running, by operation (polls as operations.poll)

    @property
    def requests(self) -> int:
        return sum(n for op, n in self.asked.items() if op != "operations.poll")

    @property
    def polls(self) -> int:
        return self.asked.get("operations.poll", 0)

    @property
    def overhead_s(self) -> float:
        return self.healed_s - self.waits_s


def spec(name: str, wait_s: float) -> MachineSpec:
    wait = f"{wait_s:g}s"
    return MachineSpec.model_validate({
        "name": name, "resource_group": SEED_RESOURCE_GROUP, "location": SEED_LOCATION,
        "vm_size": "Standard_D2s_v5", "subnet_id": seed_subnet_id(),
        "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
        "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBench bench",
        "timeouts": {"health": wait},
        "health": {"probe": {"tcp": {"port": 22}, "period": f"{PROBE_PERIOD_S}s", "failure_threshold": 1},
                   "repair": [{"action": "restart", "wait": wait}, {"action": "redeploy", "wait": wait}, "recreate"]},
    })  # fmt: skip


async def _status(client: Client, machine: MachineSpec) -> MachineStatus | None:
    handle = client.get_workflow_handle(workflow_id(machine.resource_group, machine.name))
    try:
        return await handle.query(STATUS_QUERY, result_type=MachineStatus)
    except Exception:  # not started yet, or its first task not run yet
        return None


async def _until(client: Client, machine: MachineSpec, holds: Any, what: str, timeout_s: float) -> MachineStatus:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        status = await _status(client, machine)
        if status is not None and holds(status):
            return status
        await asyncio.sleep(0.2)
    raise TimeoutError(f"{machine.name}: not {what} within {timeout_s:.0f} s")


async def measure_rung(client: Client, emulator: EmulatorControl, name: str, wait_s: float) -> Rung:
    fault, persistent, waits, healer = RUNGS[name]
    machine = spec(f"repair-{name}", wait_s)
    await apply(client, machine, TASK_QUEUE)
    await _until(client, machine, lambda s: s.phase == Phase.RUNNING, "Running", 300)
    asked = counted(emulator.requests())
    faulted_at = datetime.now(UTC)
    emulator.add_guest_fault(machine.name, fault, persistent=persistent)
    sick = await _until(client, machine, lambda s: s.phase == Phase.UNHEALTHY, "Unhealthy", 120)
    if sick.repair is None or sick.repair.step != -1:
        raise RuntimeError(f"{machine.name}: first seen Unhealthy at {sick.repair}, not before its first step")
    well = await _until(client, machine, lambda s: s.phase == Phase.RUNNING, "Running again", wait_s * waits + 120)
    spent = counted(emulator.requests()) - asked
    if spent[healer] != 1 or spent["virtualMachines.restart"] != 1:
        raise RuntimeError(f"{machine.name}: expected one {healer} after one restart, Azure was asked {dict(spent)}")
    assert well.last_operation is not None
    await client.get_workflow_handle(workflow_id(machine.resource_group, machine.name)).signal("delete")
    return Rung(name, fault + (" (persistent)" if persistent else ""), wait_s * waits,
                (sick.repair.started_at - faulted_at).total_seconds(),
                (well.last_operation.updated_at - sick.repair.started_at).total_seconds(), dict(spent))


async def measure(rungs: list[str], wait_s: float, time_scale: float, logs: Path) -> list[Rung]:
    stack = start_processes(logs, bare=False, wait_for_worker=True,
                            emulator_flags=("--time-scale", str(time_scale), "--latency-profile", "realistic"))
    try:
        client = await Client.connect(stack.address, data_converter=pydantic_data_converter)
        return [await measure_rung(client, EmulatorControl(stack.emulator_url), name, wait_s) for name in rungs]
    finally:
        stack.stop()


def rows(measured: list[Rung], time_scale: float) -> list[dict[str, Any]]:
    found = []
    for r in measured:
        setup = (f"{r.fault}; the waits: timeouts.health and each step's before this one; seen Unhealthy "
                 f"{r.detected_s:.1f} s after the fault (probe every {PROBE_PERIOD_S} s); realistic latency x "
                 f"{time_scale:g}")
        found += [
            row(f"repair by {r.name}: Unhealthy -> Running, beyond the configured waits", round(r.overhead_s, 2), "s",
                None, None, f"{r.healed_s:.1f} s against {r.waits_s:g} s of waits ({r.healed_s / r.waits_s:.3f}x); "
                f"{setup}"),
            row(f"repair by {r.name}: ARM requests from the fault to Running", r.requests, "requests", None, None,
                f"+ {r.polls} operation-status polls; {_by_operation(r)}"),
        ]
    return found


def _by_operation(rung: Rung) -> str:
    return ", ".join(f"{op} {n}" for op, n in sorted(rung.asked.items()) if op != "operations.poll")


def report(measured: list[Rung]) -> None:
    print("From a guest fault to Running again, per rung of the repair ladder\n")
    print(f"  {'rung':>9} {'fault':>18} {'seen after':>10} {'to Running':>10} {'waits':>6} {'overhead':>8} "
          f"{'ratio':>6} {'ARM':>4} {'polls':>5}")
    for r in measured:
        print(f"  {r.name:>9} {r.fault:>18} {r.detected_s:9.1f}s {r.healed_s:9.1f}s {r.waits_s:5.0f}s "
              f"{r.overhead_s:7.1f}s {r.healed_s / r.waits_s:5.2f}x {r.requests:4d} {r.polls:5d}")
    print("  'to Running' counts from Unhealthy; 'waits' are the configured ones on the way (what the ladder must")
    print("  wait); the overhead is azmc's reads, tasks and polls, and for recreate the VM's deletion and creation.")
    for r in measured:
        print(f"  {r.name}: {_by_operation(r)}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.repair_time", description=__doc__.splitlines()[0])
    parser.add_argument("--wait-s", type=float, default=10.0, help="timeouts.health and every step's wait")
    parser.add_argument("--time-scale", type=float, default=round(1 / 60, 4), help="the emulator's, realistic latency")
    parser.add_argument("--rungs", nargs="+", choices=list(RUNGS), default=list(RUNGS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="azmc-bench-repair-") as logs:
        measured = asyncio.run(measure(args.rungs, args.wait_s, args.time_scale, Path(logs)))
    report(measured)
    print(f"\n  written: {write_results('repair_time', rows(measured, args.time_scale))}")


if __name__ == "__main__":
    main()
