"""A pool's machines act ahead of Azure within the pool's limits: a maintenance that schedules a redeploy on 8 of 10
machines at once is redeployed max_replacements at a time, never as a wave; in a pool asking for zero unavailable a
surge machine replaces the one that must redeploy, Running before it goes; a Spot machine whose eviction is announced
is replaced on another offering."""

from datetime import timedelta

from models.pool import PoolStatus
from models.status import Phase
from tests.workflows.pools import pool_dict, pool_vms, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack
from tests.workflows.sweeping import sweep

TEMPLATE = {"foresight": True, "timeouts": {"health": "2m", "health_check_interval": "1m"}}


def _requests(stack: Stack, operation: str) -> int:
    return stack.emulator.requests()["by_operation"].get(f"virtualMachines.{operation}", 0)


def vm_size(stack: Stack, name: str) -> str:
    return next(str(r["vmSize"]) for r in stack.emulator.resources("virtualMachines") if r["name"] == name)


def _maintenance(status: PoolStatus) -> int:
    return sum(1 for m in status.machines if m.phase == Phase.MAINTENANCE)


async def test_a_maintenance_of_eight_of_ten_redeploys_them_max_replacements_at_a_time(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    spec = pool_dict(emulator.subnet_id, 10, template=template_dict(emulator.subnet_id, **TEMPLATE),
                     max_replacements=2, strategy={"max_surge": 1, "max_unavailable": 1})
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


async def test_a_pool_asking_for_zero_unavailable_surges_before_a_machine_redeploys_ahead_of_azure(
        stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    spec = pool_dict(emulator.subnet_id, 3, template=template_dict(emulator.subnet_id, **TEMPLATE),
                     strategy={"max_surge": 1, "max_unavailable": 0})
    handle = await start_pool(env.client, stack.task_queue, spec)
    await wait_pool(env, handle, settled(3), step=timedelta(seconds=10))
    doomed = pool_vms(emulator)[0]
    event = emulator.degrade_host(doomed, not_before_seconds=86400)["scheduled_event"]

    await sweep(stack)
    seen: list[PoolStatus] = []
    replaced = await wait_pool(env, handle, lambda s: doomed not in {m.name for m in s.machines} and settled(3)(s),
                               step=timedelta(seconds=1), virtual_limit=timedelta(minutes=30), seen=seen)
    # The surge ran first: never fewer than 3 serving (the doomed one serves in Maintenance while it waits), and the
    # doomed one went instead of redeploying.
    assert all(sum(1 for m in s.machines if m.phase in (Phase.RUNNING, Phase.MAINTENANCE)) >= 3 for s in seen)
    assert _requests(stack, "redeploy") == 0
    told = [op.description for op in replaced.recent_operations]
    surge = next(i for i, d in enumerate(told) if f"{doomed}: redeploys ahead of Azure's maintenance" in d)
    created = next(i for i, d in enumerate(told) if i > surge and d.startswith("creating "))
    gone = next(i for i, d in enumerate(told) if d.startswith(f"{doomed}: replaced by a surge"))
    assert surge < created < gone  # replaced first, deleted after
    assert doomed not in pool_vms(emulator) and len(pool_vms(emulator)) == 3
    assert event["EventId"] not in {e["EventId"] for e in emulator.scheduled_events()}  # gone with its VM
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
    told = [op.description for op in replaced.recent_operations]
    announced = told.index(f"{doomed}: Azure announced its Spot eviction ({event['EventId']}): its replacement "
                           "starts now")
    created = next(i for i, d in enumerate(told) if i > announced and d.startswith("creating "))
    assert created < told.index(f"{doomed}: Spot eviction announced: replaced")  # its replacement first
    # Let go before the eviction landed (the event never started): its VM and event are gone with it.
    assert doomed not in pool_vms(emulator) and len(pool_vms(emulator)) == 5
    assert emulator.scheduled_events() == []
    await handle.signal("delete")
    await handle.result()


async def test_a_spot_preempt_announced_has_its_replacement_on_another_offering(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    template = template_dict(emulator.subnet_id, priority="Spot", spot={"eviction_policy": "Delete"}, **TEMPLATE)
    del template["vm_size"]
    template["vm_sizes"] = ["Standard_D2s_v5", "Standard_D4s_v5"]
    handle = await start_pool(env.client, stack.task_queue, pool_dict(emulator.subnet_id, 1, template=template))
    await wait_pool(env, handle, settled(1), step=timedelta(seconds=10))
    (doomed,) = pool_vms(emulator)
    assert vm_size(stack, doomed) == "Standard_D2s_v5"  # the first size while it has room
    emulator.schedule_event(doomed, "Preempt")

    await sweep(stack)
    await wait_pool(env, handle, lambda s: doomed not in {m.name for m in s.machines} and settled(1)(s),
                    step=timedelta(seconds=5), virtual_limit=timedelta(minutes=30))
    (replacement,) = pool_vms(emulator)
    assert vm_size(stack, replacement) == "Standard_D4s_v5"  # not the offering Azure is taking back
    await handle.signal("delete")
    await handle.result()

