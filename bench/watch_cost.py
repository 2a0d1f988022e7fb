"""The ARM (and Temporal) cost of watching a fleet: the fleet sweep against per-machine health checks.

Run: `.venv/bin/python -m bench.watch_cost` (`--machines 1000 10000`). For each size it starts an
emulator (time scale 0), fills it with that many Running machines (NIC + VM + OS disk, tagged as azmc
tags them, written straight to the emulator's ARM API: the fill is not what is measured), then counts
with the emulator's request counter:
- one sweep's survey (the real survey_fleet graph query through the real SDK): Resource Graph pages;
- one per-machine health check (the real find_vm activity of a sample machine): its ARM requests.
Per hour: the sweep runs every minute (60 surveys) and each machine still reads its VM every 6 h on its
own; today each machine reads its VM every 10 minutes (6 an hour). The Temporal side is counted from
the same sizes: a visibility listing page holds 1,000 workflows (the sweep's page size), and each
per-machine check is a timer plus an activity in that machine's history; a sweep is one short workflow.
"""

import argparse
import asyncio
import dataclasses
import math
from datetime import timedelta
from typing import Any

import aiohttp
from temporalio.testing import ActivityEnvironment

from activities.config import AzureConfig
from activities.driver import AzureDriver
from activities.nic import build_nic
from activities.reading.graph import query_pages, sweep_query
from activities.vm_body import build_vm
from bench.arm_requests import bench_spec, control, start_emulator
from bench.results_file import row, write_results
from emulator.seed import SEED_RESOURCE_GROUP, SEED_SUBSCRIPTION
from models.naming import OWNER_TAG, owner_value, workflow_id
from models.spec import HEALTH_CHECK_INTERVAL
from models.sweep import DEFAULT_SWEEP_INTERVAL

INSTALLATION = "bench"
TODAY_INTERVAL = timedelta(minutes=10)  # the per-machine check before the sweep
VISIBILITY_PAGE = 1000
HOUR = timedelta(hours=1)
API = {"networkInterfaces": "2024-05-01", "virtualMachines": "2024-07-01"}


def _body(model: Any) -> dict[str, Any]:
    """The REST body of an SDK model (msrest models serialize, the newer ones are REST-shaped mappings)."""
    return model.serialize(keep_readonly=False) if hasattr(type(model), "serialize") else model.as_dict()


def _path(kind: str, name: str) -> str:
    provider = "Microsoft.Network" if kind == "networkInterfaces" else "Microsoft.Compute"
    return (f"/subscriptions/{SEED_SUBSCRIPTION}/resourceGroups/{SEED_RESOURCE_GROUP}/providers/{provider}/"
            f"{kind}/{name}?api-version={API[kind]}")


async def fill(url: str, machines: int) -> None:
    """`machines` Running machines, as azmc leaves them (owner-tagged NIC and VM; the VM makes its OS disk)."""
    headers = {"Authorization": "Bearer bench", "Content-Type": "application/json"}
    gate = asyncio.Semaphore(32)
    async with aiohttp.ClientSession(url, headers=headers) as session:
        async def one(index: int) -> None:
            spec = bench_spec().model_copy(update={"name": f"m{index:05d}", "data_disks": []})
            tags = {**spec.machine_tags(), OWNER_TAG: owner_value(INSTALLATION,
                                                                   workflow_id(spec.resource_group, spec.name))}
            async with gate:
                nic = _body(build_nic(spec, tags))
                async with session.put(_path("networkInterfaces", f"{spec.name}-nic"), json=nic) as answer:
                    nic_id = (await answer.json())["id"]
                vm = _body(build_vm(spec, nic_id, tags))
                async with session.put(_path("virtualMachines", spec.name), json=vm) as answer:
                    answer.raise_for_status()

        await asyncio.gather(*(one(i) for i in range(machines)))


def _requests(url: str) -> int:
    return sum(n for op, n in control(url, "/_emulator/requests")["by_operation"].items()
               if not op.startswith("operations."))


async def measure(url: str, machines: int) -> dict[str, float]:
    await fill(url, machines)
    driver = await AzureDriver.open(AzureConfig(installation_id=INSTALLATION, subscription_id=SEED_SUBSCRIPTION,
                                                endpoint=url, emulator_token="bench"))
    try:
        before = _requests(url)
        rows, pages = await query_pages(driver._clients, sweep_query(), "bench survey")
        survey = _requests(url) - before
        before = _requests(url)
        sample = bench_spec().model_copy(update={"name": "m00000", "data_disks": []})
        env = ActivityEnvironment()  # as the machine's own workflow runs it
        env.info = dataclasses.replace(env.info, workflow_id=workflow_id(sample.resource_group, sample.name))
        await env.run(driver.find_vm, sample)
        check = _requests(url) - before
    finally:
        await driver.close()
    sweeps = HOUR / DEFAULT_SWEEP_INTERVAL
    return {
        "machines": machines, "rows": len(rows), "graph_pages": pages, "survey_requests": survey,
        "check_requests": check,
        "today_per_hour": machines * check * (HOUR / TODAY_INTERVAL),
        "sweep_per_hour": survey * sweeps + machines * check * (HOUR / HEALTH_CHECK_INTERVAL),
        "visibility_pages_per_sweep": math.ceil(machines / VISIBILITY_PAGE),
        "visibility_per_hour": math.ceil(machines / VISIBILITY_PAGE) * sweeps,
        "today_checks_per_hour": machines * (HOUR / TODAY_INTERVAL),
        "swept_checks_per_hour": machines * (HOUR / HEALTH_CHECK_INTERVAL),
        "sweeps_per_hour": sweeps,
    }


def report(results: list[dict[str, float]]) -> None:
    print("ARM reads per hour to watch N Running machines (emulator's count; no machine drifted)\n")
    print(f"  {'machines':>8} {'graph pages/sweep':>17} {'per-machine checks (today)':>27} "
          f"{'fleet sweep':>12} {'ratio':>6}")
    for r in results:
        print(f"  {r['machines']:8.0f} {r['graph_pages']:17.0f} {r['today_per_hour']:27,.0f} "
              f"{r['sweep_per_hour']:12,.0f} {r['today_per_hour'] / r['sweep_per_hour']:6.1f}x")
    print("\n  today: one VM GET per machine every 10 min; sweep: one survey a minute (graph pages) plus one")
    print("  VM GET per machine every 6 h (its own backstop check); ARM's budget is ~90,000 reads/h a subscription.")
    print("\nTemporal side per hour")
    print(f"  {'machines':>8} {'visibility pages':>16} {'sweep workflows':>15} {'checks today':>13} {'checks now':>11}")
    for r in results:
        print(f"  {r['machines']:8.0f} {r['visibility_per_hour']:16.0f} {r['sweeps_per_hour']:15.0f} "
              f"{r['today_checks_per_hour']:13,.0f} {r['swept_checks_per_hour']:11,.0f}")
    print("  a check is a timer + an activity (+ workflow tasks) in the machine's history; a sweep is one")
    print("  workflow with one survey activity, plus one signal per drifted machine (0 here).")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machines", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    results = []
    for machines in args.machines:
        process, url = start_emulator()
        try:
            results.append(asyncio.run(measure(url, machines)))
        finally:
            process.terminate()
            process.wait(timeout=10)
    report(results)
    write_results("watch_cost", [
        row(f"ARM reads/h to watch {r['machines']:,.0f} Running machines", round(r["sweep_per_hour"]), "reads/h", None,
            f"10-min checks {r['today_per_hour']:,.0f}",
            f"fleet sweep {r['sweeps_per_hour']:.0f}/h + each machine's own check every {HEALTH_CHECK_INTERVAL}")
        for r in results])


if __name__ == "__main__":
    main()
