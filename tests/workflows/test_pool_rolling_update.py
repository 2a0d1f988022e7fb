"""Rolling updates: never more than replicas + max_surge machines, never fewer than replicas available
(max_unavailable 0), new machines count after min_ready; pause holds the rollout, resume finishes it."""

from datetime import timedelta

from models.pool import PoolStatus, RolloutPhase
from models.search_attributes import AZMC_POOL_PHASE, AZMC_POOL_UPDATED
from models.temporal_api import PAUSE_UPDATE, RESUME_UPDATE, SET_TEMPLATE_UPDATE
from tests.workflows.pools import pool_dict, pool_vms, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack

REPLICAS = 3


def _counted(status: PoolStatus) -> int:
    return sum(1 for m in status.machines if not m.deleting and not m.preserved)


async def test_rolling_update_under_faults_keeps_replicas_available(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    spec = pool_dict(emulator.subnet_id, REPLICAS, min_ready="1m", strategy={"max_surge": 1, "max_unavailable": 0})
    handle = await start_pool(env.client, stack.task_queue, spec)
    first = await wait_pool(env, handle, settled(REPLICAS))
    old_revision, old_names = first.target_revision, {m.name for m in first.machines}

    # Azure misbehaves during the rollout: VM and NIC writes fail now and then, deletes too.
    emulator.add_fault("virtualMachines.put", status=500, times=3)
    emulator.add_fault("networkInterfaces.put", status=429, code="TooManyRequests", times=2)
    emulator.add_fault("virtualMachines.delete", status=500, times=2)
    bigger = template_dict(emulator.subnet_id, vm_size="Standard_D4s_v3")
    answer: PoolStatus = await handle.execute_update(SET_TEMPLATE_UPDATE, {"template": bigger}, result_type=PoolStatus)
    new_revision = answer.target_revision
    assert new_revision != old_revision and answer.current_revision == old_revision
    assert answer.phase == RolloutPhase.ROLLING

    seen: list[PoolStatus] = []
    done = await wait_pool(env, handle, settled(REPLICAS, new_revision), step=timedelta(seconds=5), seen=seen)
    assert done.current_revision == new_revision and done.phase == RolloutPhase.STABLE
    assert not old_names & {m.name for m in done.machines}
    assert len(pool_vms(emulator)) == REPLICAS
    # The strategy's bounds held at every status read during the rollout.
    assert all(s.available >= REPLICAS for s in seen), [(s.available, s.summary) for s in seen]
    assert all(_counted(s) <= REPLICAS + 1 for s in seen), [s.summary for s in seen]
    # The sentence in the UI said what happened.
    assert any(s.summary.startswith(f"rolling 0/{REPLICAS} to rev {new_revision}, 1 surge machine") for s in seen)
    # min_ready: a new machine Running for less than a minute did not count as available.
    assert any(s.ready > s.available for s in seen)
    assert emulator.faults() == []  # every injected fault was hit (each is used up after `times` hits)
    rolled = [op for op in done.recent_operations if op.kind == "roll"]
    assert rolled and new_revision in rolled[-1].description
    await handle.signal("delete")
    await handle.result()


async def test_pause_holds_a_rollout_and_resume_finishes_it(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    handle = await start_pool(env.client, stack.task_queue, pool_dict(emulator.subnet_id, 2))
    await wait_pool(env, handle, settled(2))
    paused: PoolStatus = await handle.execute_update(PAUSE_UPDATE, result_type=PoolStatus)
    assert paused.paused
    changed: PoolStatus = await handle.execute_update(
        SET_TEMPLATE_UPDATE, {"template": template_dict(emulator.subnet_id, tags={"tier": "web"})},
        result_type=PoolStatus)
    await env.sleep(timedelta(minutes=5))
    held = await wait_pool(env, handle, lambda s: s.phase == RolloutPhase.PAUSED)
    assert held.updated == 0 and held.available == 2 and "paused at 0/2" in held.rollout_message
    assert (await handle.describe()).typed_search_attributes.get(AZMC_POOL_PHASE) == "Paused"

    await handle.execute_update(RESUME_UPDATE)
    done = await wait_pool(env, handle, settled(2, changed.target_revision))
    assert done.phase == RolloutPhase.STABLE and not done.paused
    assert (await handle.describe()).typed_search_attributes.get(AZMC_POOL_UPDATED) == 2
    await handle.signal("delete")
    await handle.result()
