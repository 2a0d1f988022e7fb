"""A pool never repairs itself to death: above max_unhealthy every repair stops (an outage, which repairs would
only deepen), and redeploys and re-creations run max_replacements at a time."""

from datetime import timedelta

from models.naming import workflow_id
from models.pool import PoolStatus
from models.status import Phase
from tests.workflows.helpers import RESOURCE_GROUP, record_history
from tests.workflows.pools import pool_dict, pool_vms, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack

# Read every minute, restart after 2 minutes, then redeploy and re-create each after 2 more.
TEMPLATE = {"timeouts": {"health": "2m", "health_check_interval": "1m"},
            "health": {"repair": [{"action": "restart", "wait": "2m"}, {"action": "redeploy", "wait": "2m"},
                                  "recreate"]}}


def _unhealthy(status: PoolStatus) -> list[str]:
    return sorted(m.name for m in status.machines if m.phase == Phase.UNHEALTHY)


def _requests(stack: Stack, operation: str) -> int:
    return stack.emulator.requests()["by_operation"].get(f"virtualMachines.{operation}", 0)


async def test_six_of_ten_hung_pause_repairs_until_four_recover_then_one_replacement_at_a_time(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    template = template_dict(emulator.subnet_id, **TEMPLATE)
    spec = pool_dict(emulator.subnet_id, 10, template=template, max_unhealthy="40%", max_replacements=1)
    handle = await start_pool(env.client, stack.task_queue, spec)
    await wait_pool(env, handle, settled(10), step=timedelta(seconds=10))
    hung = pool_vms(emulator)[:6]
    for name in hung:
        emulator.add_guest_fault(name, "hang", persistent=True)  # no restart or redeploy clears it
    paused = await wait_pool(env, handle, lambda s: len(_unhealthy(s)) == 6 and "repairs paused" in s.repairs_held,
                             step=timedelta(seconds=20))
    assert "6 of 10 unhealthy, above max_unhealthy 40%" in paused.repairs_held
    for _ in range(15):  # 30 minutes, far past every repair wait: nothing is repaired meanwhile
        await env.sleep(timedelta(minutes=2))
    assert _requests(stack, "restart") == 0 and _requests(stack, "redeploy") == 0
    assert len(_unhealthy(await _status(handle))) == 6

    for name in hung[:4]:  # four recover by themselves: 2 of 10 unhealthy is within the guard
        for fault in emulator.guest_faults():
            if fault["name"] == name:
                emulator.clear_guest_faults(fault["id"])
    seen: list[PoolStatus] = []
    done = await wait_pool(env, handle, settled(10), step=timedelta(seconds=15), seen=seen,
                           virtual_limit=timedelta(hours=2))
    assert _requests(stack, "restart") == 2  # the two still hung, restarted (restarts are not held back)
    assert _requests(stack, "redeploy") == 2  # then redeployed, and finally re-created, one at a time
    assert all(sum(1 for m in s.machines if m.name in hung[4:] and m.phase in (Phase.PENDING, Phase.CREATING))
               <= 1 for s in seen)
    assert any("in flight, max_replacements 1" in s.repairs_held for s in seen)
    assert not done.repairs_held and len(pool_vms(emulator)) == 10
    await handle.signal("delete")
    await handle.result()


async def test_resume_repairs_lets_an_operator_repair_above_max_unhealthy(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    template = template_dict(emulator.subnet_id, **TEMPLATE)
    handle = await start_pool(env.client, stack.task_queue,
                              pool_dict(emulator.subnet_id, 2, template=template, max_unhealthy=0))
    await wait_pool(env, handle, settled(2), step=timedelta(seconds=10))
    name = pool_vms(emulator)[0]
    emulator.add_guest_fault(name, "kernel_panic")  # a restart clears it
    await wait_pool(env, handle, lambda s: "repairs paused: 1 of 2 unhealthy" in s.repairs_held,
                    step=timedelta(seconds=20))
    assert _requests(stack, "restart") == 0
    resumed = await handle.execute_update("resume_repairs", result_type=PoolStatus)
    assert any(op.kind == "resume_repairs" for op in resumed.recent_operations)
    await wait_pool(env, handle, settled(2), step=timedelta(seconds=20))
    assert _requests(stack, "restart") == 1
    await handle.signal("delete")
    await handle.result()
    await record_history(handle, "pool_resume_repairs_above_max_unhealthy")
    await record_history(env.client.get_workflow_handle(workflow_id(RESOURCE_GROUP, name)),
                         "pool_machine_restarted_once_its_pool_allowed")


async def _status(handle) -> PoolStatus:
    return await handle.query("status", result_type=PoolStatus)


async def test_a_pool_whose_machine_is_repaired_says_repairing_not_scaling(stack: Stack) -> None:
    """Replicas never change: while a machine is Unhealthy and restarted, the pool says Repairing, with counts."""
    env, emulator = stack.env, stack.emulator
    template = template_dict(emulator.subnet_id, **TEMPLATE)
    handle = await start_pool(env.client, stack.task_queue, pool_dict(emulator.subnet_id, 3, template=template))
    await wait_pool(env, handle, settled(3), step=timedelta(seconds=10))
    emulator.add_guest_fault(pool_vms(emulator)[0], "kernel_panic")  # a restart clears it
    seen: list[PoolStatus] = []
    await wait_pool(env, handle, lambda s: bool(_unhealthy(s)), step=timedelta(seconds=20), seen=seen)
    await wait_pool(env, handle, settled(3), step=timedelta(seconds=20), seen=seen)
    assert _requests(stack, "restart") == 1
    repairing = [s for s in seen if _unhealthy(s)]
    assert repairing and all(s.phase == "Repairing" and s.repairing == 1 for s in repairing), \
        [(s.phase, s.summary) for s in repairing]
    assert "repairing: 2/3 available, 1 unhealthy" in repairing[0].summary, repairing[0].summary
    assert all(s.phase in ("Stable", "Repairing") for s in seen), [(s.phase, s.summary) for s in seen]
    await handle.signal("delete")
    await handle.result()
