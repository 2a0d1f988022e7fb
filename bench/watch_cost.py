"""The ARM (and Temporal) cost of watching a fleet: the fleet sweep against per-machine health checks, with
health on (issue 25) against the same watching before it.

Run: `.venv/bin/python -m bench.watch_cost` (`--machines 1000 10000`). For each size it starts an
emulator (time scale 0), fills it with that many Running machines (bench/fleet_fill.py: not what is
measured), then counts with the emulator's request counter:
- one sweep's survey (the real survey_fleet graph query through the real SDK, HealthResources joined), and
  the same query without the join, as the sweep ran before health: Resource Graph pages;
- one per-machine health check (the real find_vm activity of a sample machine, as a worker that has not seen
  it yet makes it): its ARM requests; the VM agent comes in that same GET, and a machine whose agent is Ready
  reads no Resource Health;
- what an Unhealthy machine adds: a check every minute (find_vm again, now known to the worker) plus its
  Resource Health read (read_resource_health).
Per hour: the sweep runs every minute (60 surveys) and each machine reads its VM every 6 h on its own; before
the sweep each machine read its VM every 10 minutes (6 an hour). The Temporal side is counted from the same
sizes: a visibility listing page holds 1,000 workflows (the sweep's page size), and each per-machine check is
a timer plus an activity in that machine's history; a sweep is one short workflow.
"""

import argparse
import asyncio
import dataclasses
import math
from datetime import timedelta
from typing import Any

from temporalio.testing import ActivityEnvironment

from activities.config import AzureConfig
from activities.driver import AzureDriver
from activities.reading.graph import query_pages, sweep_query
from bench.arm_requests import control
from bench.fleet_fill import INSTALLATION, fill, machine
from bench.results_file import row, write_results
from bench.stack import emulator_alone
from emulator.seed import SEED_SUBSCRIPTION
from models.activity_io import MachineRef
from models.durations import humanize
from models.naming import workflow_id
from models.spec import HEALTH_CHECK_INTERVAL
from models.sweep import DEFAULT_SWEEP_INTERVAL
from workflows.machine.health import UNHEALTHY_RECHECK

TODAY_INTERVAL = timedelta(minutes=10)  # the per-machine check before the sweep
VISIBILITY_PAGE = 1000
HOUR = timedelta(hours=1)
GOAL = 1.5  # issue 25: watching health costs at most 1.5x the watching before it
_JOIN = " | extend vmid"


def query_before_health() -> str:
    """The sweep's query as it was before health: the same rows, without the HealthResources join."""
    query = sweep_query()
    assert _JOIN in query, "the sweep's query no longer joins HealthResources as this bench expects"
    return query.split(_JOIN)[0] + " | project id, name, type, resourceGroup, tags, properties | order by id asc"


def _requests(url: str) -> int:
    return sum(n for op, n in control(url, "/_emulator/requests")["by_operation"].items()
               if not op.startswith("operations."))


async def _counted(url: str, call: Any) -> tuple[Any, int]:
    """What `call()` returns, and the ARM requests it made."""
    before = _requests(url)
    value = await call()
    return value, _requests(url) - before


async def measure(url: str, machines: int) -> dict[str, float]:
    await fill(url, machines)
    driver = await AzureDriver.open(AzureConfig(installation_id=INSTALLATION, subscription_id=SEED_SUBSCRIPTION,
                                                endpoint=url, emulator_token="bench"))
    try:
        (rows, pages), survey = await _counted(url, lambda: query_pages(driver._clients, sweep_query(), "survey"))
        (_, pages_before), survey_before = await _counted(
            url, lambda: query_pages(driver._clients, query_before_health(), "survey before health"))
        sample = machine(0)
        env = ActivityEnvironment()  # as the machine's own workflow runs it
        env.info = dataclasses.replace(env.info, workflow_id=workflow_id(sample.resource_group, sample.name))
        found, check = await _counted(url, lambda: env.run(driver.find_vm, sample))
        _, recheck = await _counted(url, lambda: env.run(driver.find_vm, sample))
        ref = MachineRef(resource_group=sample.resource_group, name=sample.name)
        _, resource_health = await _counted(url, lambda: env.run(driver.read_resource_health, ref))
    finally:
        await driver.close()
    if found.vm_state.agent != "Ready" or len(rows) != machines:
        raise RuntimeError(f"expected {machines} Ready machines, the survey saw {len(rows)} rows and the "
                           f"sample's agent {found.vm_state.agent!r}")
    sweeps = HOUR / DEFAULT_SWEEP_INTERVAL
    checks = machines * check * (HOUR / HEALTH_CHECK_INTERVAL)
    health = survey * sweeps + checks  # a Ready agent: no Resource Health read
    before = survey_before * sweeps + checks
    per_unhealthy = (recheck + resource_health) * (HOUR / UNHEALTHY_RECHECK)
    return {
        "machines": machines, "rows": len(rows), "graph_pages": pages, "graph_pages_before": pages_before,
        "survey_requests": survey, "survey_requests_before": survey_before, "check_requests": check,
        "recheck_requests": recheck, "resource_health_requests": resource_health,
        "today_per_hour": machines * check * (HOUR / TODAY_INTERVAL),
        "before_health_per_hour": before, "sweep_per_hour": health, "health_ratio": health / before,
        "per_unhealthy_per_hour": per_unhealthy,
        "unhealthy_within_goal": math.floor(max(GOAL * before - health, 0) / per_unhealthy),
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
    print(f"\nWith health on, against the same watching before it (goal <= {GOAL}x)")
    print(f"  {'machines':>8} {'pages (before)':>14} {'reads/h before':>15} {'health on':>10} {'ratio':>6} "
          f"{'per Unhealthy':>14} {'Unhealthy within goal':>22}")
    for r in results:
        print(f"  {r['machines']:8.0f} {r['graph_pages']:6.0f} ({r['graph_pages_before']:.0f}) "
              f"{r['before_health_per_hour']:15,.0f} {r['sweep_per_hour']:10,.0f} {r['health_ratio']:5.2f}x "
              f"{r['per_unhealthy_per_hour']:14,.0f} {r['unhealthy_within_goal']:22,.0f}")
    print("  the VM agent comes with the VM GET every check makes; Resource Health is one column of the sweep's")
    print("  pages (HealthResources joined) and a read of its own only while a machine is not Ready or Unhealthy,")
    print("  which is checked every minute (VM GET + Resource Health GET) until healthy again; probes read no ARM.")
    print("\nTemporal side per hour")
    print(f"  {'machines':>8} {'visibility pages':>16} {'sweep workflows':>15} {'checks today':>13} {'checks now':>11}")
    for r in results:
        print(f"  {r['machines']:8.0f} {r['visibility_per_hour']:16.0f} {r['sweeps_per_hour']:15.0f} "
              f"{r['today_checks_per_hour']:13,.0f} {r['swept_checks_per_hour']:11,.0f}")
    print("  a check is a timer + an activity (+ workflow tasks) in the machine's history; a sweep is one")
    print("  workflow with one survey activity, plus one signal per drifted machine (0 here).")


def rows(results: list[dict[str, float]]) -> list[dict[str, Any]]:
    every = f"fleet sweep every {humanize(DEFAULT_SWEEP_INTERVAL)}, HealthResources joined, + each machine's own " \
            f"check every {humanize(HEALTH_CHECK_INTERVAL)} (its VM agent in the same GET)"
    found = []
    for r in results:
        size = f"{r['machines']:,.0f}"
        found += [
            row(f"ARM reads/h to watch {size} Running machines, health on", round(r["sweep_per_hour"]), "reads/h",
                None, f"10-min checks {r['today_per_hour']:,.0f}", every),
            row(f"ARM reads/h to watch {size} machines, health on / before health", round(r["health_ratio"], 3),
                "x", f"<= {GOAL}", None, f"before health {r['before_health_per_hour']:,.0f} reads/h; graph pages "
                f"a survey {r['graph_pages']:.0f} (before {r['graph_pages_before']:.0f})"),
            row(f"Unhealthy machines of {size} within {GOAL}x of watching before health",
                r["unhealthy_within_goal"], "machines", None, None,
                f"each Unhealthy machine adds {r['per_unhealthy_per_hour']:,.0f} reads/h (a VM GET and a Resource "
                f"Health GET every {humanize(UNHEALTHY_RECHECK)}) while it is repaired"),
        ]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machines", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args()
    results = []
    for machines in args.machines:
        with emulator_alone(("--time-scale", "0"), "watch-cost") as url:
            results.append(asyncio.run(measure(url, machines)))
    report(results)
    print(f"\n  written: {write_results('watch_cost', rows(results))}")


if __name__ == "__main__":
    main()
