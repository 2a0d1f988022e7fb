"""MachineLifecycle with the real driver against the emulator (time scale 0, time-skipping Temporal).

After every scenario the emulator holds exactly what the scenario expects: the machine's own VM,
NIC and disks while it runs, nothing once it is deleted or has failed.
"""

from datetime import timedelta

import pytest

from emulator.seed import SEED_RESOURCE_GROUP
from models.status import MachineStatus, Phase
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

RUNNING_KINDS = ["disks", "disks", "networkInterfaces", "virtualMachines"]  # OS disk + one data disk


def _descriptions(status: MachineStatus) -> list[str]:
    return [op.description for op in status.recent_operations]


async def _delete_and_check_empty(stack: Stack, handle, **request: object) -> MachineStatus:
    await handle.signal("delete", {"reason": "test done", **request})
    final = await handle.result()
    assert final.phase == Phase.DELETED
    assert final.inventory.is_empty
    assert stack.machine_resources() == []
    return final


async def test_seed_scenario_allocation_failure_and_reserved_nic(stack: Stack) -> None:
    """MCM's bug: after a failed create only the NIC was left, it was taken for the VM, and the
    machine sat in CrashLoopBackOff until the creation timeout. Here it is re-created at once."""
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                             message="Allocation failed. Please try another size.", stage="operation", times=1)
    stack.emulator.add_fault("networkInterfaces.delete", name="vm1-nic", status=400, code="NicReservedForAnotherVm",
                             message="Nic(s) in request is reserved for another Virtual Machine for 180 seconds. "
                                     "Please provide another nic(s) or retry after 180 seconds.", times=3)
    # Two acceptable sizes: the refused one is remembered, and the next attempt tries the other at once.
    spec = {**spec_dict(subnet_id=stack.emulator.subnet_id), "vm_sizes": ["Standard_D2s_v3", "Standard_D4s_v3"]}
    del spec["vm_size"]
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED), step=timedelta(seconds=20))
    assert running.phase == Phase.RUNNING
    assert stack.kinds() == RUNNING_KINDS
    assert running.inventory.provider_id.startswith("azure:///subscriptions/")
    assert running.attempts == 2
    assert running.offering is not None and running.offering.vm_size == "Standard_D4s_v3"
    # Never took the leftover NIC for a VM: no adoption, a second real create.
    assert not any("adopting" in d for d in _descriptions(running))
    assert any("attempt 2: ensuring VM" in d for d in _descriptions(running))
    # Azure refused to delete the reserved NIC; it was kept and reused by the same VM, not waited out.
    assert any("kept for the next attempt" in d for d in _descriptions(running))
    took = running.recent_operations[-1].updated_at - running.recent_operations[0].updated_at
    assert took < timedelta(minutes=20) / 1.5, took  # well before creation_timeout (20m)
    await _delete_and_check_empty(stack, handle)
    await record_history(handle, "seed_scenario_allocation_failed_nic_reserved")


@pytest.mark.parametrize(("status", "code"), [(400, "NicInUse"), (500, "InternalServerError")])
async def test_nic_delete_failing_n_times_is_retried(stack: Stack, status: int, code: str) -> None:
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="ZonalAllocationFailed",
                             stage="operation", times=1)
    stack.emulator.add_fault("networkInterfaces.delete", name="vm1-nic", status=status, code=code,
                             message="injected", times=6)
    # Zone 1 refuses: the compensation (with its NIC delete retries) runs before zone 2 is tried.
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, zones=["1", "2"])
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED), step=timedelta(seconds=20))
    assert running.phase == Phase.RUNNING and running.attempts == 2
    assert stack.kinds() == RUNNING_KINDS
    assert stack.emulator.requests()["by_operation"].get("networkInterfaces.delete", 0) >= 7
    await _delete_and_check_empty(stack, handle)


async def test_throttling_bursts_are_ridden_out(stack: Stack) -> None:
    for operation in ("networkInterfaces.put", "virtualMachines.put", "resources.list"):
        stack.emulator.add_fault(operation, status=429, code="SubscriptionRequestsThrottled", message="throttled",
                                 times=2, retry_after_s=1)  # a retry refused again: a burst
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED), step=timedelta(seconds=10))
    assert running.phase == Phase.RUNNING
    assert stack.kinds() == RUNNING_KINDS
    await _delete_and_check_empty(stack, handle)


async def test_creation_timeout_fails_with_nothing_left_then_delete(stack: Stack) -> None:
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                             stage="operation", times=-1)
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"creation": "15m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    failed = await wait_for(stack.env, handle, lambda s: s.phase == Phase.FAILED and "nothing left" in
                            (s.last_operation.description if s.last_operation else ""), step=timedelta(seconds=30))
    # One attempt: the shared memory holds the refusal (1 h), so it never asked Azure for that size again.
    assert failed.attempts == 1
    assert "AllocationFailed" in failed.last_error or "CapacityExhausted" in failed.last_error
    assert stack.machine_resources() == []
    # Still open: Failed waits for an operator. Delete it (from Failed).
    await _delete_and_check_empty(stack, handle)
    await record_history(handle, "creation_timeout_failed_then_deleted")


async def test_health_check_finds_vm_gone_and_recreates_it(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"health": "5m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    first = await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    # Someone deletes the VM behind azmc's back (its NIC and OS disk go with it: deleteOption Delete; the
    # data disk stays, deleteOption Detach, and the new VM attaches it).
    await stack.driver.delete_vm(_vm_input())
    assert "virtualMachines" not in stack.kinds()
    await handle.signal("reconcile")
    unknown = await wait_for(stack.env, handle, in_phase(Phase.UNKNOWN), step=timedelta(seconds=1))
    assert not unknown.inventory.has_vm
    again = await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and s.attempts >= 1 and
                           any("re-creating" in d for d in _descriptions(s)), step=timedelta(seconds=30))
    assert again.inventory.provider_id == first.inventory.provider_id
    assert stack.kinds() == RUNNING_KINDS
    await _delete_and_check_empty(stack, handle)
    await record_history(handle, "health_check_vm_gone_recreated")


def _vm_input():
    from models.activity_io import DeleteVmInput, MachineRef

    return DeleteVmInput(machine=MachineRef(resource_group=SEED_RESOURCE_GROUP, name="vm1"), force=True)
