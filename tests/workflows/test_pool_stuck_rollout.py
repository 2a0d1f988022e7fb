"""A rollout whose new revision never gets capacity stops after the template's creation timeout, says so,
keeps the old machines serving, and set_template back to the old template rolls back."""

from datetime import timedelta

from models.pool import PoolStatus, RolloutPhase
from models.search_attributes import AZMC_POOL_PHASE
from models.temporal_api import SET_TEMPLATE_UPDATE
from tests.workflows.pools import pool_dict, pool_vms, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack


async def test_rollout_stuck_on_capacity_then_rolled_back(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    old_template = template_dict(emulator.subnet_id, timeouts={"creation": "15m"})
    handle = await start_pool(env.client, stack.task_queue, pool_dict(emulator.subnet_id, 2, template=old_template))
    first = await wait_pool(env, handle, settled(2))
    old_names = sorted(m.name for m in first.machines)

    # No capacity for any new VM (the running ones are untouched).
    emulator.add_fault("virtualMachines.put", status=409, code="AllocationFailed", times=-1)
    new_template = template_dict(emulator.subnet_id, vm_size="Standard_D8s_v3", timeouts={"creation": "15m"})
    rolling: PoolStatus = await handle.execute_update(SET_TEMPLATE_UPDATE, {"template": new_template},
                                                      result_type=PoolStatus)
    started_at = rolling.recent_operations[-1].at
    seen: list[PoolStatus] = []
    stuck = await wait_pool(env, handle, lambda s: s.phase == RolloutPhase.STUCK, step=timedelta(seconds=30),
                            seen=seen)
    stopped = next(op for op in stuck.recent_operations if op.kind == "stuck")
    assert timedelta(minutes=15) <= stopped.at - started_at < timedelta(minutes=16)
    assert "stuck" in stuck.rollout_message and "15m" in stuck.rollout_message
    assert "set_template to roll back" in stuck.rollout_message
    assert stuck.summary.startswith(f"stuck rolling 0/2 to rev {rolling.target_revision}")
    assert (await handle.describe()).typed_search_attributes.get(AZMC_POOL_PHASE) == "Stuck"
    assert all(s.available == 2 for s in seen)

    # Stopped means stopped: an hour later no new revision machine was added, the old ones serve.
    await env.sleep(timedelta(hours=1))
    later = await wait_pool(env, handle, lambda s: True)
    assert later.phase == RolloutPhase.STUCK and later.available == 2
    new_machines = {m.name for s in [*seen, later] for m in s.machines if m.revision == rolling.target_revision}
    assert len(new_machines) <= 2, new_machines
    assert pool_vms(emulator) == old_names

    back: PoolStatus = await handle.execute_update(SET_TEMPLATE_UPDATE, {"template": old_template},
                                                   result_type=PoolStatus)
    assert back.target_revision == first.target_revision
    assert "rolling back" in back.recent_operations[-1].description
    done = await wait_pool(env, handle, settled(2, first.target_revision))
    assert done.phase == RolloutPhase.STABLE and sorted(m.name for m in done.machines) == old_names
    emulator.clear_faults()
    await handle.signal("delete")
    await handle.result()
    assert pool_vms(emulator) == []
