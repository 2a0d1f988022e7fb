"""Azure's own quota refusal, when the last usages reading still showed room (the quota lowered just before a
burst), with the real driver and the emulator: the refusal is read as quota, the usages are read again at once, and
the refused machines wait Pending with the reason, the pool saying so, instead of 10 minutes in CrashLoopBackOff;
they run within a reading of the quota being raised."""

from datetime import timedelta

from models.naming import workflow_id
from models.pool import PoolStatus
from models.status import MachineStatus, Phase
from models.temporal_api import SCALE_UPDATE
from tests.workflows.helpers import RESOURCE_GROUP, status_of
from tests.workflows.pools import pool_dict, settled, start_pool, wait_pool
from tests.workflows.stack import Stack
from tests.workflows.test_capacity_fallback import failed_vm_puts, vm_puts
from tests.workflows.test_quota_foreseen import FAMILY, quota_refusals, usage_reads

LIMIT, NEEDS = " of 2 vCPUs in use", "(Standard_D2s_v3 needs 2)"


def for_quota(reason: str) -> bool:
    """The reading's reason: "standardDSv3Family 2 of 2 vCPUs in use (Standard_D2s_v3 needs 2)", counting the
    claim of a machine refused at the same moment when it read before that refusal was told."""
    return reason.startswith(f"{FAMILY} ") and LIMIT in reason and reason.endswith(NEEDS)


def two_wait_for_quota(status: PoolStatus) -> bool:
    return status.quota_waiting == 2 and sorted(m.phase for m in status.machines) == \
        [Phase.PENDING] * 2 + [Phase.RUNNING]


async def test_a_quota_refusal_is_waited_for_as_quota_after_a_fresh_reading(stack: Stack) -> None:
    handle = await start_pool(stack.env.client, stack.task_queue, pool_dict(stack.emulator.subnet_id, 1))
    await wait_pool(stack.env, handle, settled(1), step=timedelta(seconds=5))
    reads = usage_reads(stack)
    assert reads == 1  # the reading the burst will trust: no quota in sight

    # The quota is lowered to what the running machine holds, then a burst: the reading, a minute old, shows room.
    stack.emulator.set_quota(2, family=FAMILY)
    await handle.execute_update(SCALE_UPDATE, {"replicas": 3})
    seen: list[PoolStatus] = []
    waiting = await wait_pool(stack.env, handle, two_wait_for_quota, step=timedelta(seconds=5),
                              virtual_limit=timedelta(minutes=2), seen=seen)
    assert (quota_refusals(stack), vm_puts(stack), failed_vm_puts(stack)) == (2, 3, 2)  # Azure refused both PUTs
    assert 1 <= usage_reads(stack) - reads <= 2  # read again at once, not at the next regular reading
    assert waiting.quota_held.startswith("2 of 3 wait for quota: ")
    assert for_quota(waiting.quota_held.removeprefix("2 of 3 wait for quota: "))
    assert waiting.quota_held in waiting.summary
    for name in (m.name for m in waiting.machines if m.phase == Phase.PENDING):
        machine: MachineStatus = await status_of(
            stack.env.client.get_workflow_handle(workflow_id(RESOURCE_GROUP, name)))
        assert for_quota(machine.waiting_for_quota)
        assert machine.attempts == 1 and machine.last_operation is not None
        assert machine.last_operation.description.startswith(f"waiting for quota: {machine.waiting_for_quota}")

    # Raised: the next reading, at most AZMC_QUOTA_READ_EVERY (3 min) away, lets both run; no 10-minute wait.
    stack.emulator.clear_quota()
    stack.emulator.set_quota(6, family=FAMILY)
    await wait_pool(stack.env, handle, settled(3), step=timedelta(seconds=10),
                    virtual_limit=timedelta(minutes=3, seconds=30))
    assert (vm_puts(stack), failed_vm_puts(stack)) == (5, 2)  # no refused PUT more
    await handle.signal("delete", {"reason": "test done"})
    await handle.result()
