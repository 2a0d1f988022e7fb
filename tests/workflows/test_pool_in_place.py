"""A template change every machine can take in place (tags, timeouts) is applied to the pool's machines with
their own `update_spec`: the same VMs, re-tagged, none created or deleted, and the pool says so. A change that
needs new VMs (the size) still rolls, replacing every machine."""

from datetime import timedelta

from models.pool import PoolStatus, RolloutPhase
from models.pool_status import PoolOperation
from models.temporal_api import SET_TEMPLATE_UPDATE
from tests.workflows.pools import pool_dict, pool_vms, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack

REPLICAS = 3


def _in_place(status: PoolStatus) -> list[PoolOperation]:
    return [op for op in status.recent_operations if op.kind == "in place"]


async def test_a_tag_and_timeout_change_is_applied_in_place_and_a_size_change_rolls(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    handle = await start_pool(env.client, stack.task_queue, pool_dict(emulator.subnet_id, REPLICAS))
    first = await wait_pool(env, handle, settled(REPLICAS))
    names = sorted(m.name for m in first.machines)
    counts_before = emulator.requests()["by_operation"]

    retagged = template_dict(emulator.subnet_id, tags={"team": "web"}, timeouts={"health": "15m"})
    answer: PoolStatus = await handle.execute_update(SET_TEMPLATE_UPDATE, {"template": retagged},
                                                     result_type=PoolStatus)
    assert any("change in place" in op.description and "tags.team" in op.description
               for op in answer.recent_operations if op.kind == "template")
    done = await wait_pool(env, handle, lambda s: settled(REPLICAS, answer.target_revision)(s) and bool(_in_place(s)))
    assert sorted(m.name for m in done.machines) == names  # the same machines: none replaced
    assert done.current_revision == answer.target_revision and done.phase == RolloutPhase.STABLE
    assert f"applied in place to {REPLICAS} machines" in _in_place(done)[-1].description
    vms = emulator.resources("virtualMachines")
    assert sorted(vm["name"] for vm in vms) == names and all(vm["tags"].get("team") == "web" for vm in vms)
    nics = [r for r in emulator.resources("networkInterfaces") if r["name"].startswith(f"{first.name}-")]
    assert len(nics) == REPLICAS and all(nic["tags"].get("team") == "web" for nic in nics)
    counts = emulator.requests()["by_operation"]
    for operation in ("virtualMachines.put", "virtualMachines.delete", "networkInterfaces.put"):
        assert counts.get(operation, 0) == counts_before.get(operation, 0), operation  # the same VMs, re-tagged

    bigger = template_dict(emulator.subnet_id, tags={"team": "web"}, timeouts={"health": "15m"},
                           vm_size="Standard_D4s_v3")
    rolled: PoolStatus = await handle.execute_update(SET_TEMPLATE_UPDATE, {"template": bigger}, result_type=PoolStatus)
    assert rolled.phase == RolloutPhase.ROLLING
    after = await wait_pool(env, handle, settled(REPLICAS, rolled.target_revision), step=timedelta(seconds=5))
    assert not set(names) & {m.name for m in after.machines}  # every machine replaced
    assert len(_in_place(after)) == len(_in_place(done))
    assert len(pool_vms(emulator)) == REPLICAS
    await handle.signal("delete")
    await handle.result()
