"""A pool's machines act ahead of Azure within the pool's limits: a maintenance that schedules a redeploy on 8 of 10
machines at once is redeployed max_replacements at a time, never as a wave."""

from datetime import timedelta

from models.pool import PoolStatus
from models.status import Phase
from tests.workflows.pools import pool_dict, pool_vms, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack
from tests.workflows.sweeping import sweep

TEMPLATE = {"foresight": True, "timeouts": {"health": "2m", "health_check_interval": "1m"}}


def _requests(stack: Stack, operation: str) -> int:
    return stack.emulator.requests()["by_operation"].get(f"virtualMachines.{operation}", 0)


def _maintenance(status: PoolStatus) -> int:
    return sum(1 for m in status.machines if m.phase == Phase.MAINTENANCE)


async def test_a_maintenance_of_eight_of_ten_redeploys_them_max_replacements_at_a_time(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    spec = pool_dict(emulator.subnet_id, 10, template=template_dict(emulator.subnet_id, **TEMPLATE),
                     max_replacements=2)
    handle = await start_pool(env.client, stack.task_queue, spec)
    await wait_pool(env, handle, settled(10), step=timedelta(seconds=10))
    hosts = {r["name"]: r["host"] for r in emulator.resources("virtualMachines")}
    announced = pool_vms(emulator)[:8]
    for name in announced:
        emulator.schedule_event(name, "Redeploy", not_before_seconds=86400)

    # Each redeploy takes a wall second, so that the ones under way can be counted while the others wait.
    emulator.add_fault("virtualMachines.redeploy", status=0, stage="operation", delay_s=1.0, times=8)

    report = await sweep(stack)
    assert len(report.foresight_signalled) == 8 and report.graph_pages == 1
    seen: list[PoolStatus] = []
    under_way: list[int] = []

    def redeployed(status: PoolStatus) -> bool:
        under_way.append(sum(1 for r in emulator.resources("virtualMachines") if r.get("runningOperation")))
        return _requests(stack, "redeploy") == 8 and _maintenance(status) == 0

    done = await wait_pool(env, handle, redeployed, step=timedelta(seconds=1), seen=seen,
                           virtual_limit=timedelta(hours=1))
    assert max(under_way) == 2  # two at a time, never more: the pool's max_replacements
    assert any("in flight, max_replacements 2" in s.repairs_held for s in seen)  # the others waited their turn
    assert not done.repairs_held and all(m.phase == Phase.RUNNING for m in done.machines)
    moved = {r["name"] for r in emulator.resources("virtualMachines") if r["host"] != hosts[r["name"]]}
    assert moved == set(announced)  # each announced one redeployed once, ahead of Azure; the two others untouched
    assert {e["outcome"] for e in emulator.scheduled_events()} == {"approved by redeploy"}
    await handle.signal("delete")
    await handle.result()


async def test_a_spot_preempt_in_a_pool_of_five_has_its_replacement_running_before_the_eviction(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    template = template_dict(emulator.subnet_id, priority="Spot", spot={"eviction_policy": "Delete"}, **TEMPLATE)
    handle = await start_pool(env.client, stack.task_queue, pool_dict(emulator.subnet_id, 5, template=template))
    await wait_pool(env, handle, settled(5), step=timedelta(seconds=10))
    doomed = pool_vms(emulator)[0]
    event = emulator.schedule_event(doomed, "Preempt")  # 30 s notice; at time scale 0 it lands when the test says

    report = await sweep(stack)
    assert [line.split(": ", 1)[0] for line in report.foresight_signalled] == [f"machine/azmc-demo/{doomed}"]
    seen: list[PoolStatus] = []
    replaced = await wait_pool(env, handle, lambda s: doomed not in {m.name for m in s.machines} and settled(5)(s),
                               step=timedelta(seconds=5), virtual_limit=timedelta(minutes=30), seen=seen)
    # Its replacement ran before the doomed machine went: the pool never had fewer than 5 Running.
    assert all(sum(1 for m in s.machines if m.phase == Phase.RUNNING) >= 5 for s in seen)
    assert any(len(s.machines) == 6 for s in seen)
    assert any(f"Azure announced its Spot eviction ({event['EventId']})" in op.description
               for op in replaced.recent_operations)
    # Let go before the eviction landed (the event never started): its VM and event are gone with it.
    assert doomed not in pool_vms(emulator) and len(pool_vms(emulator)) == 5
    assert emulator.scheduled_events() == []
    await handle.signal("delete")
    await handle.result()
