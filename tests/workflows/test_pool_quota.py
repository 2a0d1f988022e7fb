"""A pool asked for more machines than the quota holds, with the real driver and the emulator: the machines that
fit run, the others wait in Pending (nothing failed) with the reason in the pool's status and their own, past
their creation timeout, without a VM PUT refused for quota; more quota, or fewer replicas, ends the wait.
"""

from datetime import timedelta

from models.naming import workflow_id
from models.pool import PoolStatus
from models.status import MachineStatus, Phase
from models.temporal_api import SCALE_UPDATE
from tests.workflows.helpers import RESOURCE_GROUP, record_history, status_of
from tests.workflows.pools import pool_dict, pool_resources, settled, start_pool, wait_pool
from tests.workflows.stack import Stack
from tests.workflows.test_capacity_fallback import failed_vm_puts, vm_puts
from tests.workflows.test_quota_foreseen import FAMILY, quota_refusals

REASON = f"{FAMILY} 6 of 6 vCPUs in use (Standard_D2s_v3 needs 2)"


def three_run_two_wait(status: PoolStatus) -> bool:
    phases = sorted(m.phase for m in status.machines)
    return phases == [Phase.PENDING] * 2 + [Phase.RUNNING] * 3 and status.quota_waiting == 2


async def five_on_a_quota_for_three(stack: Stack) -> tuple[object, PoolStatus]:
    stack.emulator.set_quota(6, family=FAMILY)
    handle = await start_pool(stack.env.client, stack.task_queue, pool_dict(stack.emulator.subnet_id, 5))
    status = await wait_pool(stack.env, handle, three_run_two_wait, step=timedelta(seconds=10))
    return handle, status


async def test_five_machines_on_a_quota_for_three_run_three_and_two_wait_with_the_reason(stack: Stack) -> None:
    handle, status = await five_on_a_quota_for_three(stack)
    # Before a reading holds the VMs just created, the memory counts them as claimed.
    assert status.quota_held.startswith(f"2 of 5 wait for quota: {FAMILY} 6 of 6 vCPUs in use")
    assert status.quota_held.endswith("(Standard_D2s_v3 needs 2)") and status.quota_held in status.summary
    waiting = [m.name for m in status.machines if m.phase == Phase.PENDING]
    machine = await status_of(stack.env.client.get_workflow_handle(workflow_id(RESOURCE_GROUP, waiting[0])))
    assert machine.last_operation is not None and machine.waiting_for_quota
    assert machine.last_operation.description.startswith(f"waiting for quota: {machine.waiting_for_quota}")
    assert "refused" not in machine.last_operation.description and machine.attempts == 0
    assert (vm_puts(stack), quota_refusals(stack), failed_vm_puts(stack)) == (3, 0, 0)

    # More quota: the next reading (at most AZMC_QUOTA_READ_EVERY, 3 min, old) lets both run.
    stack.emulator.clear_quota()
    stack.emulator.set_quota(10, family=FAMILY)
    done = await wait_pool(stack.env, handle, settled(5), step=timedelta(seconds=10),
                           virtual_limit=timedelta(minutes=3, seconds=30))
    assert done.quota_waiting == 0 and done.quota_held == "" and "quota" not in done.summary
    assert (vm_puts(stack), quota_refusals(stack), failed_vm_puts(stack)) == (5, 0, 0)
    await handle.signal("delete", {"reason": "test done"})
    await handle.result()
    assert pool_resources(stack.emulator) == []
    await record_history(stack.env.client.get_workflow_handle(workflow_id(RESOURCE_GROUP, waiting[0])),
                         "pool_machine_waits_for_quota")


async def test_a_wait_for_quota_outlasts_the_creation_timeout_until_the_pool_scales_to_what_fits(stack: Stack) -> None:
    handle, status = await five_on_a_quota_for_three(stack)
    running = sorted(m.name for m in status.machines if m.phase == Phase.RUNNING)
    # Past the template's creation timeout (20 min): still waiting, nothing failed, deleted or replaced.
    await stack.env.sleep(timedelta(minutes=45))
    later = await wait_pool(stack.env, handle, three_run_two_wait)
    assert sorted(m.name for m in later.machines) == sorted(m.name for m in status.machines)
    assert not [op for op in later.recent_operations if op.kind in ("replace", "delete")]
    assert later.quota_held == f"2 of 5 wait for quota: {REASON}"  # as the last reading says
    assert (vm_puts(stack), quota_refusals(stack), failed_vm_puts(stack)) == (3, 0, 0)

    await handle.execute_update(SCALE_UPDATE, {"replicas": 3})
    done = await wait_pool(stack.env, handle, settled(3))
    assert sorted(m.name for m in done.machines) == running  # the waiting ones went first
    assert done.quota_waiting == 0 and done.quota_held == ""
    assert (vm_puts(stack), quota_refusals(stack), failed_vm_puts(stack)) == (3, 0, 0)
    for name in running:
        machine: MachineStatus = await status_of(stack.env.client.get_workflow_handle(workflow_id(RESOURCE_GROUP,
                                                                                                  name)))
        assert machine.phase == Phase.RUNNING
    await handle.signal("delete", {"reason": "test done"})
    await handle.result()
    assert pool_resources(stack.emulator) == []
    await record_history(handle, "pool_scaled_to_what_its_quota_holds")
