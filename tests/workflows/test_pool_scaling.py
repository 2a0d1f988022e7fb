"""A pool scales 0 -> 5 -> 2 -> 0 with the real driver against the emulator, and its delete leaves nothing."""

from datetime import timedelta

from models.naming import workflow_id
from models.pool import PoolStatus, RolloutPhase
from models.search_attributes import AZMC_POOL, AZMC_POOL_AVAILABLE, AZMC_POOL_PHASE, AZMC_POOL_REPLICAS
from models.status import MachineStatus, Phase
from models.temporal_api import SCALE_UPDATE
from tests.workflows.helpers import RESOURCE_GROUP, record_history
from tests.workflows.pools import pool_dict, pool_resources, pool_status, pool_vms, settled, start_pool, wait_pool
from tests.workflows.stack import Stack


async def test_scale_0_5_2_0_then_delete_leaves_nothing(stack: Stack) -> None:
    client, env = stack.env.client, stack.env
    handle = await start_pool(client, stack.task_queue, pool_dict(stack.emulator.subnet_id, 0))
    empty = await wait_pool(env, handle, settled(0))
    assert empty.phase == RolloutPhase.STABLE and empty.target_revision

    answer: PoolStatus = await handle.execute_update(SCALE_UPDATE, {"replicas": 5}, result_type=PoolStatus)
    assert answer.replicas == 5
    five = await wait_pool(env, handle, settled(5))
    names = sorted(m.name for m in five.machines)
    assert pool_vms(stack.emulator) == names and all(n.startswith("web-") and len(n) == 9 for n in names)
    assert five.phase == RolloutPhase.STABLE and five.current_revision == five.target_revision
    assert five.summary == f"5/5 available on rev {five.target_revision}"
    # Each machine is its own MachineLifecycle, inspectable on its own, carrying the pool.
    machine = client.get_workflow_handle(workflow_id(RESOURCE_GROUP, names[0]))
    assert (await machine.query("status", result_type=MachineStatus)).pool == "web"
    assert (await machine.describe()).typed_search_attributes.get(AZMC_POOL) == "web"
    attributes = (await handle.describe()).typed_search_attributes
    assert attributes.get(AZMC_POOL_PHASE) == "Stable" and attributes.get(AZMC_POOL_REPLICAS) == 5
    assert attributes.get(AZMC_POOL_AVAILABLE) == 5

    await handle.execute_update(SCALE_UPDATE, {"replicas": 2})
    two = await wait_pool(env, handle, settled(2))
    assert set(m.name for m in two.machines) <= set(names)
    assert pool_vms(stack.emulator) == sorted(m.name for m in two.machines)

    await handle.execute_update(SCALE_UPDATE, {"replicas": 0})
    await wait_pool(env, handle, settled(0))
    assert pool_resources(stack.emulator) == []
    kinds = [op.kind for op in (await pool_status(handle)).recent_operations]
    assert kinds.count("scale") >= 3 and "delete" in kinds

    await handle.execute_update(SCALE_UPDATE, {"replicas": 3})
    await wait_pool(env, handle, settled(3))
    await handle.signal("delete", {"reason": "test done"})
    final: PoolStatus = await handle.result()
    assert final.phase == RolloutPhase.DELETED and final.machines == []
    assert pool_resources(stack.emulator) == []
    for name in names:
        done = await client.get_workflow_handle(workflow_id(RESOURCE_GROUP, name)).query(
            "status", result_type=MachineStatus)
        assert done.phase == Phase.DELETED
    assert timedelta(0) < final.recent_operations[-1].at - final.recent_operations[0].at
    await record_history(handle, "pool_scale_0_5_2_0_3_deleted")
    await record_history(client.get_workflow_handle(workflow_id(RESOURCE_GROUP, names[0])),
                         "pool_machine_tells_its_pool_until_deleted")


async def test_cancelling_a_pool_deletes_its_machines(stack: Stack) -> None:
    handle = await start_pool(stack.env.client, stack.task_queue, pool_dict(stack.emulator.subnet_id, 2))
    await wait_pool(stack.env, handle, settled(2))
    await handle.cancel()
    final: PoolStatus = await handle.result()
    assert final.phase == RolloutPhase.DELETED and final.machines == []
    assert any(op.description == "deleting the pool: workflow cancelled" for op in final.recent_operations)
    assert pool_resources(stack.emulator) == []


async def test_a_machine_deleted_on_its_own_is_replaced(stack: Stack) -> None:
    client = stack.env.client
    handle = await start_pool(client, stack.task_queue, pool_dict(stack.emulator.subnet_id, 2))
    first = await wait_pool(stack.env, handle, settled(2))
    gone = first.machines[0].name
    await client.get_workflow_handle(workflow_id(RESOURCE_GROUP, gone)).signal("delete", {"reason": "by hand"})
    again = await wait_pool(stack.env, handle, lambda s: settled(2)(s) and gone not in {m.name for m in s.machines})
    assert len(pool_vms(stack.emulator)) == 2 and gone not in pool_vms(stack.emulator)
    assert any(op.description == f"{gone} deleted" for op in again.recent_operations)
    await handle.signal("delete")
    await handle.result()
