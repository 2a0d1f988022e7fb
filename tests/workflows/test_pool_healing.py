"""Healing: Failed machines are replaced at most max_replacements at a time (the meltdown guard says when it
holds replacements back); up to preserve_failed Failed machines are kept, uncounted, and deleted last
(after preserve_timeout: test_pool_preserve_timeout.py)."""

from datetime import timedelta

from models.naming import workflow_id
from models.pool import PoolStatus
from models.status import Phase
from tests.workflows.helpers import RESOURCE_GROUP
from tests.workflows.pools import pool_dict, pool_vms, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack


def _replacing(status: PoolStatus) -> int:
    """Replacements under way: started for a Failed machine, neither Running nor Failed themselves yet."""
    return sum(1 for m in status.machines if m.replacement and m.phase not in (Phase.RUNNING, Phase.FAILED)
               and not m.deleting)


async def test_five_failed_machines_are_replaced_one_at_a_time(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    emulator.add_fault("virtualMachines.put", status=409, code="AllocationFailed", times=-1)
    template = template_dict(emulator.subnet_id, timeouts={"creation": "10m"})
    handle = await start_pool(env.client, stack.task_queue, pool_dict(emulator.subnet_id, 5, template=template))
    first = await wait_pool(env, handle, lambda s: len(s.machines) == 5)
    first_names = {m.name for m in first.machines}

    def all_failed(status: PoolStatus) -> bool:  # each of the first five is Failed, or was and is replaced already
        left = {m.name: m.phase for m in status.machines if m.name in first_names}
        return all(phase == Phase.FAILED for phase in left.values())

    await wait_pool(env, handle, all_failed, step=timedelta(seconds=20))
    emulator.clear_faults()  # capacity is back

    seen: list[PoolStatus] = []
    done = await wait_pool(env, handle, settled(5), step=timedelta(seconds=5), seen=seen)
    assert not first_names & {m.name for m in done.machines}
    assert all(_replacing(s) <= 1 for s in seen), [s.machines for s in seen if _replacing(s) > 1]
    held = [s.replacements_held for s in seen if s.replacements_held]
    assert any("max_replacements 1" in h and "meltdown guard" in h for h in held), held
    assert any("replacements held back by max_replacements" in s.summary for s in seen)
    replaced = [op.description for op in done.recent_operations if op.kind == "replace"]
    assert len(replaced) >= 5 and all("," not in d for d in replaced), replaced  # one machine per replacement
    assert len(pool_vms(emulator)) == 5
    await handle.signal("delete")
    await handle.result()
    assert pool_vms(emulator) == []


async def test_pool_delete_removes_preserved_machines_last(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    emulator.add_fault("virtualMachines.put", name="web-*", status=409, code="AllocationFailed", times=-1)
    template = template_dict(emulator.subnet_id, timeouts={"creation": "10m"})
    spec = pool_dict(emulator.subnet_id, 1, template=template, preserve_failed=1)
    handle = await start_pool(env.client, stack.task_queue, spec)
    await wait_pool(env, handle, lambda s: any(m.preserved for m in s.machines), step=timedelta(seconds=20))
    emulator.clear_faults()
    # The replacement waits out capacity backoffs: read every 30 virtual seconds (it stays available once it is).
    ready = await wait_pool(env, handle, lambda s: s.available == 1, step=timedelta(seconds=30))
    (kept,) = [m.name for m in ready.machines if m.preserved]
    (serving,) = [m.name for m in ready.machines if not m.preserved]
    await handle.signal("delete", {"reason": "done"})
    final: PoolStatus = await handle.result()
    order = [op.description.split(" ")[0] for op in final.recent_operations
             if op.kind == "delete" and op.description.endswith(" deleted")]
    assert order.index(serving) < order.index(kept)
    assert pool_vms(emulator) == [] and final.machines == []


async def test_a_machine_preserved_by_an_operator_is_kept_and_replaced(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    handle = await start_pool(env.client, stack.task_queue, pool_dict(emulator.subnet_id, 2))
    first = await wait_pool(env, handle, settled(2))
    chosen = first.machines[0].name
    await env.client.get_workflow_handle(workflow_id(RESOURCE_GROUP, chosen)).signal(
        "preserve", {"reason": "look at its disk"})
    kept = await wait_pool(env, handle, lambda s: s.available == 2 and len(s.machines) == 3)
    (preserved,) = [m for m in kept.machines if m.preserved]
    assert preserved.name == chosen and (kept.current, kept.replicas) == (2, 2)
    assert any(op.kind == "preserve" and chosen in op.description for op in kept.recent_operations)
    await handle.signal("delete")
    final: PoolStatus = await handle.result()
    assert final.machines == [] and pool_vms(emulator) == []
