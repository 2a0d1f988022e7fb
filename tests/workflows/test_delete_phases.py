"""`delete` (or cancellation) from every phase ends Deleted with nothing left in the emulator."""

from datetime import timedelta

import pytest
from temporalio.client import WorkflowHandle

from models.status import MachineStatus, Phase, Stage
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack


def _stages(status: MachineStatus) -> list[Stage]:
    return [op.stage for op in status.recent_operations]


async def _finish(stack: Stack, handle: WorkflowHandle) -> MachineStatus:
    final: MachineStatus = await handle.result()
    assert final.phase == Phase.DELETED
    assert stack.machine_resources() == [], stack.machine_resources()
    assert final.recent_operations[-1].stage == Stage.VERIFY_DELETION
    return final


async def test_delete_in_pending_makes_no_azure_write(stack: Stack) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id),
                                 start_signal="delete", start_signal_args=[{"reason": "changed my mind"}])
    await _finish(stack, handle)
    writes = {op: n for op, n in stack.emulator.requests()["by_operation"].items()
              if op.endswith((".put", ".delete"))}
    assert writes == {}


async def test_delete_leftover_nic_only_with_nic_delete_failing(stack: Stack) -> None:
    """Only a NIC exists (a crash between ensure_nic and ensure_vm): deletion starts at the NIC stage."""
    await stack.driver.ensure_nic(_spec(stack))
    stack.emulator.add_fault("networkInterfaces.delete", name="vm1-nic", status=400, code="NicInUse",
                             message="in use", times=6)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id),
                                 start_signal="delete")
    final = await _finish(stack, handle)
    await record_history(handle, "delete_leftover_nic_failing")
    assert Stage.INITIATE_DRAIN not in _stages(final) and Stage.INITIATE_VM_DELETION in _stages(final)
    assert any("failure" in op.description for op in final.recent_operations)  # retried, visibly


async def test_delete_mid_creation_waits_for_the_put_then_cleans(stack: Stack) -> None:
    # The VM PUT hangs for 2 wall seconds: the delete arrives while it is in flight.
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=0, delay_s=2.0, times=1)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    creating = await wait_for(stack.env, handle, lambda s: s.phase == Phase.CREATING and s.last_operation is not None
                              and "ensuring VM" in s.last_operation.description, step=timedelta(milliseconds=100))
    assert creating.phase == Phase.CREATING
    await handle.signal("delete", {"reason": "mid-creation"})
    await _finish(stack, handle)
    await record_history(handle, "delete_mid_creation")


async def test_delete_in_crash_loop_backoff(stack: Stack) -> None:
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                             stage="operation", times=-1)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, lambda s: s.phase == Phase.CRASH_LOOP_BACK_OFF and s.next_retry_at is not None)
    await handle.signal("delete")
    await _finish(stack, handle)


@pytest.mark.parametrize("force", [False, True])
async def test_delete_running_drains_unless_forced(stack: Stack, force: bool) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    await handle.signal("delete", {"reason": "scale down", "force": force})
    final = await _finish(stack, handle)
    drained = stack.emulator.requests()["by_operation"].get("virtualMachines.powerOff", 0)
    assert (Stage.INITIATE_DRAIN in _stages(final)) is (not force)
    assert drained == (0 if force else 1)


async def test_workflow_cancellation_deletes_the_machine(stack: Stack) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    await handle.cancel()
    final = await _finish(stack, handle)
    await record_history(handle, "cancelled_while_running")
    assert final.last_operation is not None


def _spec(stack: Stack):
    from models.spec import MachineSpec

    return MachineSpec.model_validate(spec_dict(subnet_id=stack.emulator.subnet_id))
