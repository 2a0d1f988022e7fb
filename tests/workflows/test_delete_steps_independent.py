"""Deletion: a resource that cannot be deleted never keeps the others alive, and every step that waits to
retry shows its error and next retry time (status and the UI's current details)."""

from datetime import timedelta

from temporalio.client import WorkflowHandle

from models.spec import MachineSpec
from models.status import Phase, Stage
from tests.activities.conftest import put_disk
from tests.workflows.data_disks import DATA_DISK, disk, operator
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

ATTACHED = ("Disk vm1-data-0-data-disk is attached to VM /subscriptions/00000000-0000-0000-0000-000000000000/"
            "resourceGroups/azmc-demo/providers/Microsoft.Compute/virtualMachines/vm1.")


async def _current_details(handle: WorkflowHandle) -> str:
    metadata = await handle.query("__temporal_workflow_metadata")
    return metadata["currentDetails"] if isinstance(metadata, dict) else metadata.current_details


async def _leftovers(stack: Stack, *, nic: bool) -> None:
    """What a crash can leave: the NIC, and a data disk of the machine (detached)."""
    if nic:
        await stack.driver.ensure_nic(MachineSpec.model_validate(spec_dict(subnet_id=stack.emulator.subnet_id)))
    async with operator(stack) as azure:
        await put_disk(azure, DATA_DISK, {"azmc-machine": "vm1", "azmc-pool": "workers"})


async def test_a_nic_that_cannot_be_deleted_does_not_keep_the_disks(stack: Stack) -> None:
    await _leftovers(stack, nic=True)
    fault = stack.emulator.add_fault("networkInterfaces.delete", name="vm1-nic", status=400, code="NicInUse",
                                     message="Nic vm1-nic is in use by another operation", times=-1)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id),
                                 start_signal="delete")
    stalled = await wait_for(stack.env, handle, lambda s: disk(stack) is None and any(
        w.failures >= 2 for w in s.stalled), step=timedelta(seconds=5))
    # The disk went while the NIC kept failing; the NIC is shown as the step that waits.
    assert stalled.phase == Phase.TERMINATING
    [nic] = stalled.stalled
    assert nic.stage == Stage.INITIATE_NIC_DELETION and nic.description == "delete NIC vm1-nic"
    assert nic.error.startswith("Conflict: ") and "NicInUse" in nic.error
    assert nic.next_retry_at is not None and stalled.next_retry_at == nic.next_retry_at
    assert "NicInUse" in stalled.last_error  # the disk's success did not hide it
    details = await _current_details(handle)
    assert "Waiting to retry" in details and "delete NIC vm1-nic" in details and "NicInUse" in details
    assert f"next retry {nic.next_retry_at:%Y-%m-%d %H:%M:%S} UTC" in details
    stack.emulator.remove_fault(fault)
    final = await handle.result()
    assert final.phase == Phase.DELETED and final.stalled == [] and stack.machine_resources() == []
    await record_history(handle, "delete_nic_stalled_disks_deleted")


async def test_disk_still_attached_is_a_conflict_retried_with_the_reason_shown(stack: Stack) -> None:
    await _leftovers(stack, nic=False)
    stack.emulator.add_fault("disks.delete", name=DATA_DISK, status=409, code="OperationNotAllowed",
                             message=ATTACHED, times=2)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id),
                                 start_signal="delete")
    waiting = await wait_for(stack.env, handle, lambda s: bool(s.stalled), step=timedelta(seconds=1))
    [step] = waiting.stalled
    assert step.stage == Stage.INITIATE_DISK_DELETION and step.description == f"delete disk {DATA_DISK}"
    # A conflict that ends when the VM lets go, not a capacity problem: retried in seconds, not 10 minutes.
    assert step.error.startswith("Conflict: ") and "OperationNotAllowed" in step.error and "attached" in step.error
    assert "CapacityExhausted" not in waiting.last_error
    assert step.next_retry_at - waiting.last_operation.updated_at <= timedelta(seconds=10)
    final = await handle.result()
    assert final.phase == Phase.DELETED and stack.machine_resources() == []
    took = final.recent_operations[-1].updated_at - waiting.last_operation.updated_at
    assert took < timedelta(minutes=1), took


async def test_delete_takes_the_data_disk_with_the_vm_in_one_request(stack: Stack) -> None:
    """`delete` deletes the data too, cheaply: deleteOption Delete (one PATCH), then the VM's own delete."""
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    await handle.signal("delete", {"force": True})
    final = await handle.result()
    assert final.phase == Phase.DELETED and stack.machine_resources() == []
    writes = stack.emulator.requests()["by_operation"]
    assert writes.get("virtualMachines.patch") == 1 and writes.get("disks.delete", 0) == 0
    assert any(f"data disks {DATA_DISK} go with the VM" in op.description for op in final.recent_operations)
