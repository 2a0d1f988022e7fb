"""A long-lived machine continues as new with its state, and still obeys signals afterwards."""

from datetime import timedelta

from temporalio.client import WorkflowHandle

from models.spec import MachineSpec
from models.status import MachineStatus, Phase
from tests.workflows.helpers import (
    in_phase,
    machine_activity_env,
    record_history,
    spec_dict,
    start_machine,
    wait_for,
)
from tests.workflows.stack import Stack
from workflows.continuation import HISTORY_LIMIT_MEMO
from workflows.policies import MIN_HISTORY_LIMIT


async def _run_ids(handle: WorkflowHandle) -> tuple[str, str]:
    description = await handle.describe()
    return description.run_id, description.raw_description.workflow_execution_info.first_run_id


async def test_continue_as_new_keeps_state_and_signals(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"health_check_interval": "1m"})
    env = stack.env
    handle = await start_machine(env.client, stack.task_queue, spec, memo={HISTORY_LIMIT_MEMO: MIN_HISTORY_LIMIT})
    first = await wait_for(env, handle, in_phase(Phase.RUNNING))
    latest = env.client.get_workflow_handle(handle.id, result_type=MachineStatus)
    # Periodic health checks grow the history until the workflow continues as new.
    await wait_for(env, latest, lambda s: len(s.recent_operations) >= 20, step=timedelta(minutes=1))
    for _ in range(30):
        run_id, first_run_id = await _run_ids(latest)
        if run_id != first_run_id:
            break
        await env.sleep(timedelta(minutes=1))
    assert run_id != first_run_id, "never continued as new"
    carried = await wait_for(env, latest, in_phase(Phase.RUNNING))
    # The machine, its attempts and its operation log came along.
    assert carried.attempts == first.attempts == 1
    new_run_started = (await latest.describe()).start_time
    assert carried.recent_operations[0].updated_at < new_run_started, "the operation log stayed behind"
    assert carried.inventory.provider_id == first.inventory.provider_id
    assert carried.inventory.nic_names == first.inventory.nic_names
    assert carried.inventory.disk_names == first.inventory.disk_names
    # Signals reach the new run: reconcile re-checks, delete removes the machine.
    await latest.signal("reconcile")
    await latest.signal("delete", {"reason": "after continue-as-new"})
    final = await latest.result()
    first_run = env.client.get_workflow_handle(handle.id, run_id=handle.first_execution_run_id)
    await record_history(first_run, "continue_as_new_first_run")
    await record_history(latest, "continue_as_new_last_run")
    assert final.phase == Phase.DELETED
    assert stack.machine_resources() == []


async def test_deletion_that_keeps_failing_continues_as_new_and_finishes(stack: Stack) -> None:
    """A NIC Azure refuses to delete for a long time: the retries move to fresh runs, the delete goes on."""
    spec = MachineSpec.model_validate(spec_dict(subnet_id=stack.emulator.subnet_id))
    await machine_activity_env().run(stack.driver.ensure_nic, spec)
    fault = stack.emulator.add_fault("networkInterfaces.delete", name="vm1-nic", status=400, code="NicInUse",
                                     message="in use", times=-1)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id),
                                 memo={HISTORY_LIMIT_MEMO: MIN_HISTORY_LIMIT}, start_signal="delete")
    latest = stack.env.client.get_workflow_handle(handle.id, result_type=MachineStatus)
    for _ in range(60):
        run_id, first_run_id = await _run_ids(latest)
        if run_id != first_run_id:
            break
        await stack.env.sleep(timedelta(minutes=1))
    assert run_id != first_run_id, "never continued as new while deletion kept failing"
    terminating = await latest.query("status", result_type=MachineStatus)
    assert terminating.phase == Phase.TERMINATING and terminating.inventory.nic_names == ["vm1-nic"]
    assert terminating.last_error  # the failure is shown, not hidden
    stack.emulator.remove_fault(fault)
    # `latest` is not the time-skipping handle start_workflow returned: skip to the retry explicitly.
    await wait_for(stack.env, latest, in_phase(Phase.DELETED), step=timedelta(seconds=30))
    final = await latest.result()
    assert final.phase == Phase.DELETED
    assert stack.machine_resources() == []
    first_run = stack.env.client.get_workflow_handle(handle.id, run_id=handle.first_execution_run_id)
    await record_history(first_run, "deletion_continued_as_new_mid_retry")
