"""Capacity a Spot eviction wave costs a pool, with foresight against without it, in one run.

Run: `.venv/bin/python -m bench.eviction_wave [--replicas 20] [--evicted 5] [--time-scale 1]`. A dev server, the
emulator (realistic latency x the time scale: a VM PUT takes 45 s, Azure's Spot notice 30 s) and an `azmc worker`.
Two pools of `--replicas` Spot machines (eviction policy Delete) run side by side, one with `foresight: true`, one
without; both have timeouts.health `--health-timeout-s` (the default 10 min would only make "without" worse). Then
Azure announces a preemption of `--evicted` machines of each pool at once (scheduled events, 30 s notice, evicted at
their deadline on the emulator's clock) and the fleet sweep runs every `--sweep-every-s` (the Schedule's default is
60 s), the first one `--first-sweep-s` after the announcement. Every 0.25 s each pool's running VMs are counted in
Azure (the emulator: a pool's own view lags an eviction it has not noticed yet): capacity lost is the machine-minutes
below `replicas` until both pools are whole again (`replicas` VMs running, the pool settled). Writes
bench/results/eviction_wave.json. Printed and recorded, never asserted.
"""

import argparse
import asyncio
import json
import tempfile
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from bench.results_file import row, write_results
from bench.stack import start_processes
from cli.emulator_client import EmulatorControl
from cli.pool_workflow import apply_pool, status
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, seed_subnet_id
from models.naming import POOL_TAG, pool_workflow_id
from models.pool import PoolSpec
from models.pool_status import PoolStatus
from models.sweep import SWEEP_WORKFLOW, SweepInput, SweepReport
from workers.settings import TASK_QUEUE

POOLS = {"wave-with": True, "wave-without": False}  # name -> foresight
SAMPLE_S = 0.25


def pool_spec(name: str, replicas: int, foresight: bool, health_timeout_s: float) -> PoolSpec:
    return PoolSpec.model_validate({
        "name": name, "resource_group": SEED_RESOURCE_GROUP, "replicas": replicas,
        "template": {"location": SEED_LOCATION, "vm_size": "Standard_D2s_v5", "subnet_id": seed_subnet_id(),
                     "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
                     "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBench bench",
                     "priority": "Spot", "spot": {"eviction_policy": "Delete"}, "foresight": foresight,
                     "timeouts": {"health": f"{health_timeout_s:g}s"}}})


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read() or b"null")


def running_vms(emulator: EmulatorControl) -> dict[str, int]:
    """Each pool's running VMs as Azure has them (the `azmc-pool` tag)."""
    counts = dict.fromkeys(POOLS, 0)
    for vm in emulator.resources():
        pool = (vm.get("tags") or {}).get(POOL_TAG)
        if vm["type"].lower() == "microsoft.compute/virtualmachines" and pool in counts \
                and vm.get("powerState") == "running":
            counts[pool] += 1
    return counts


def whole(current: PoolStatus, replicas: int) -> bool:
    return current.available == replicas and len(current.machines) == replicas


def _events(url: str, pool: str) -> list[dict[str, Any]]:
    """The pool's scheduled events (their VMs are named after the pool); a deleted VM's are gone with it."""
    with urllib.request.urlopen(f"{url}/_emulator/scheduled-events", timeout=30) as answer:
        return [e for e in json.loads(answer.read())["value"] if e["Resources"][0].startswith(f"{pool}-")]


async def _statuses(client: Client) -> dict[str, PoolStatus]:
    return {name: await status(client, pool_workflow_id(SEED_RESOURCE_GROUP, name)) for name in POOLS}


async def _sweeps(client: Client, every_s: float, first_s: float, reports: list[SweepReport]) -> None:
    await asyncio.sleep(first_s)
    while True:
        handle = await client.start_workflow(SWEEP_WORKFLOW, SweepInput(), id=f"bench-sweep-{uuid.uuid4()}",
                                             task_queue=TASK_QUEUE, result_type=SweepReport)
        reports.append(await handle.result())
        await asyncio.sleep(every_s)


async def measure(args: argparse.Namespace, logs: Path) -> dict[str, Any]:
    stack = start_processes(logs, bare=False, wait_for_worker=True,
                            emulator_flags=("--time-scale", str(args.time_scale), "--latency-profile", "realistic"))
    try:
        client = await Client.connect(stack.address, data_converter=pydantic_data_converter)
        for name, foresight in POOLS.items():
            await apply_pool(client, pool_spec(name, args.replicas, foresight, args.health_timeout_s), TASK_QUEUE)
        deadline = time.monotonic() + 600
        while not all(whole(s, args.replicas) for s in (await _statuses(client)).values()):
            if time.monotonic() > deadline:
                raise TimeoutError("the pools did not fill within 10 minutes")
            await asyncio.sleep(1)
        doomed = {name: sorted(m.name for m in s.machines)[:args.evicted] for name, s in
                  (await _statuses(client)).items()}
        for names in doomed.values():
            for machine in names:
                _post(f"{stack.emulator_url}/_emulator/scheduled-events", {"name": machine, "event_type": "Preempt"})
        announced = time.monotonic()
        emulator = EmulatorControl(stack.emulator_url)
        reports: list[SweepReport] = []
        sweeping = asyncio.ensure_future(_sweeps(client, args.sweep_every_s, args.first_sweep_s, reports))
        lost = dict.fromkeys(POOLS, 0.0)
        recovered: dict[str, float] = {}
        last = time.monotonic()
        try:
            while len(recovered) < len(POOLS):
                await asyncio.sleep(SAMPLE_S)
                now = time.monotonic()
                vms = running_vms(emulator)
                for name, current in (await _statuses(client)).items():
                    lost[name] += max(0, args.replicas - vms[name]) * (now - last)
                    evicted = not any(e["EventStatus"] != "Completed" for e in _events(stack.emulator_url, name))
                    if name not in recovered and evicted and vms[name] >= args.replicas \
                            and whole(current, args.replicas):
                        recovered[name] = now - announced
                last = now
                if now - announced > 900:
                    raise TimeoutError(f"not whole again within 15 minutes: {sorted(set(POOLS) - set(recovered))}")
        finally:
            sweeping.cancel()
        for name in POOLS:
            await client.get_workflow_handle(pool_workflow_id(SEED_RESOURCE_GROUP, name)).signal("delete")
        return {"lost_min": {n: v / 60 for n, v in lost.items()}, "recovered_s": recovered,
                "foresight_signalled": sum(len(r.foresight_signalled) for r in reports), "sweeps": len(reports)}
    finally:
        stack.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.eviction_wave", description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=20)
    parser.add_argument("--evicted", type=int, default=5)
    parser.add_argument("--time-scale", type=float, default=1.0)
    parser.add_argument("--health-timeout-s", type=float, default=60.0)
    parser.add_argument("--sweep-every-s", type=float, default=60.0)
    parser.add_argument("--first-sweep-s", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="azmc-bench-wave-") as logs:
        found = asyncio.run(measure(args, Path(logs)))
    with_, without = found["lost_min"]["wave-with"], found["lost_min"]["wave-without"]
    setup = (f"{args.replicas} Spot machines a pool, {args.evicted} preempted at once (30 s notice, policy Delete), "
             f"sweep every {args.sweep_every_s:g} s (first {args.first_sweep_s:g} s after the notice), health "
             f"timeout {args.health_timeout_s:g} s, realistic latency x {args.time_scale:g}")
    print(f"capacity lost: with foresight {with_:.2f} machine-minutes, without {without:.2f}; whole again after "
          + ", ".join(f"{n} {s:.0f} s" for n, s in found["recovered_s"].items()) + f"\n  {setup}")
    rows = [
        row("Spot eviction wave: capacity lost with foresight", round(with_, 2), "machine-min", None, None, setup),
        row("Spot eviction wave: capacity lost without foresight", round(without, 2), "machine-min", None, None,
            f"with/without {with_ / without:.3f}" if without else "nothing lost"),
    ]
    print(f"  written: {write_results('eviction_wave', rows)}")


if __name__ == "__main__":
    main()
