"""A pool keeps up to preserve_failed Failed machines, uncounted and told to stop healing, replaces them, and
deletes them once preserve_timeout has passed.

On a dev server, in real seconds: the time-skipping test server rejects a workflow task that cancels a timer
which fired meanwhile (a real server drops the fired event), which two preservations close together can meet.
"""

from datetime import timedelta

from cli.offerings import forget_refusals
from models.naming import workflow_id
from models.pool import PoolStatus
from models.status import MachineStatus, Phase
from tests.workflows.helpers import REAL_TIME, RESOURCE_GROUP
from tests.workflows.pools import pool_dict, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack

PRESERVE_TIMEOUT = timedelta(seconds=20)


async def test_failed_machines_are_preserved_uncounted_and_deleted_after_the_timeout(dev_stack: Stack) -> None:
    env, emulator = dev_stack.env, dev_stack.emulator
    emulator.add_fault("virtualMachines.put", status=409, code="AllocationFailed", times=-1)
    template = template_dict(emulator.subnet_id, timeouts={"creation": "2s"})
    spec = pool_dict(emulator.subnet_id, 3, template=template, preserve_failed=2,
                     preserve_timeout=f"{PRESERVE_TIMEOUT.seconds}s", max_replacements=3)
    handle = await start_pool(env.client, dev_stack.task_queue, spec)
    seen: list[PoolStatus] = []  # every status read: a pool keeps only its 20 latest operations
    kept = await wait_pool(env, handle, lambda s: sum(1 for m in s.machines if m.preserved) == 2, seen=seen,
                           **REAL_TIME)
    emulator.clear_faults()
    # Capacity is back: the shared memory of refused offerings is told to forget (else machines skip
    # the refused size for its hour).
    await forget_refusals(env.client, emulator.subscription_id, template["location"])
    running = await wait_pool(env, handle, lambda s: s.available == 3 and len(s.machines) == 5, seen=seen,
                              **REAL_TIME)
    preserved = sorted(m.name for m in running.machines if m.preserved)
    assert preserved == sorted(m.name for m in kept.machines if m.preserved)
    assert all(m.phase == Phase.FAILED for m in running.machines if m.preserved)
    assert (running.replicas, running.current) == (3, 3)  # preserved machines do not count
    assert "2 preserved" in running.summary
    for name in preserved:  # the machines themselves were told: preserved, healing stopped
        machine = await env.client.get_workflow_handle(workflow_id(RESOURCE_GROUP, name)).query(
            "status", result_type=MachineStatus)
        assert machine.preserved and machine.phase == Phase.FAILED

    await wait_pool(env, handle, settled(3), seen=seen, **REAL_TIME)
    operations = {(op.kind, op.description, op.at) for status in seen for op in status.recent_operations}
    preserved_at = {description.split(":")[0]: at for kind, description, at in operations if kind == "preserve"}
    gone_at = {description.split(" ")[0]: at for kind, description, at in operations if kind == "delete"}
    assert sorted(preserved_at) == preserved
    for name in preserved:
        assert gone_at[name] - preserved_at[name] >= PRESERVE_TIMEOUT
    await handle.signal("delete")
    await handle.result()
