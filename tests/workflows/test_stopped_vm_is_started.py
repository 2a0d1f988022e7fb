"""A stopped or deallocated VM is started again, never rebuilt: same VM id, same data disk (uniqueId)."""

from datetime import timedelta

import pytest

from models.status import OperationState, Phase, Stage
from tests.workflows.data_disks import RG, descriptions, operator, shown_unique_ids, unique_id, vm
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

ALLOCATION_FAILED = {"status": 409, "code": "AllocationFailed", "stage": "operation"}


def _vm_puts(stack: Stack) -> int:
    return stack.emulator.requests()["by_operation"].get("virtualMachines.put", 0)


@pytest.mark.parametrize(("verb", "power"), [("deallocate", "deallocated"), ("power_off", "stopped")])
async def test_vm_stopped_out_of_band_is_started_with_the_same_vm_and_data_disk(
        stack: Stack, verb: str, power: str) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    before_vm, before_disk, puts = vm(stack), unique_id(stack), _vm_puts(stack)
    assert shown_unique_ids(running) == {"vm1-data-0-data-disk": before_disk}  # the status names the data
    async with operator(stack) as azure:  # an operator in the portal
        await (await getattr(azure.compute.virtual_machines, f"begin_{verb}")(RG, "vm1")).result()
    assert vm(stack)["powerState"] == power
    await handle.signal("reconcile")
    again = await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and any(
        f"started the {power} VM vm1" in d for d in descriptions(s)))
    after = vm(stack)
    assert after["id"] == before_vm["id"] and after["powerState"] == "running"
    assert _vm_puts(stack) == puts  # started, never re-created
    assert not any("deleting it" in d or "re-created" in d for d in descriptions(again))
    assert unique_id(stack) == before_disk and shown_unique_ids(again) == {"vm1-data-0-data-disk": before_disk}
    assert again.inventory.provider_id == running.inventory.provider_id
    await handle.signal("delete")
    await handle.result()
    assert stack.machine_resources() == []
    await record_history(handle, f"vm_{power}_out_of_band_started")


async def test_start_without_capacity_waits_in_unknown_then_runs_when_capacity_returns(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id)
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    before_vm, before_disk = vm(stack), unique_id(stack)
    async with operator(stack) as azure:
        await (await azure.compute.virtual_machines.begin_deallocate(RG, "vm1")).result()
    fault = stack.emulator.add_fault("virtualMachines.start", name="vm1", times=-1, **ALLOCATION_FAILED)
    await handle.signal("reconcile")
    waiting = await wait_for(stack.env, handle, in_phase(Phase.UNKNOWN))
    # The reason is in the status: the capacity error, when the next start is due, the step that waits.
    assert "CapacityExhausted" in waiting.last_error and "AllocationFailed" in waiting.last_error
    assert waiting.last_operation is not None and waiting.last_operation.stage == Stage.POWER_ON
    assert waiting.last_operation.state == OperationState.FAILED
    [stalled] = waiting.stalled
    assert stalled.stage == Stage.POWER_ON and "AllocationFailed" in stalled.error
    assert stalled.next_retry_at is not None and waiting.next_retry_at == stalled.next_retry_at
    assert stalled.next_retry_at - waiting.last_operation.updated_at == timedelta(minutes=10)  # capacity wait
    # Still failing at the next try: still Unknown, still the same VM, never rebuilt.
    await wait_for(stack.env, handle, lambda s: bool(s.stalled) and s.stalled[0].failures >= 2,
                   step=timedelta(minutes=1))
    assert vm(stack)["id"] == before_vm["id"]
    stack.emulator.remove_fault(fault)
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING), step=timedelta(minutes=1),
                             virtual_limit=timedelta(minutes=12))
    assert running.stalled == [] and running.last_error == ""
    assert vm(stack)["id"] == before_vm["id"] and unique_id(stack) == before_disk
    assert not any("re-creat" in d for d in descriptions(running))
    await handle.signal("delete")
    await handle.result()
    assert stack.machine_resources() == []
    await record_history(handle, "start_without_capacity_waits_in_unknown")


async def test_reconcile_starts_again_at_once_when_capacity_is_back(stack: Stack) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    async with operator(stack) as azure:
        await (await azure.compute.virtual_machines.begin_deallocate(RG, "vm1")).result()
    stack.emulator.add_fault("virtualMachines.start", name="vm1", times=1, **ALLOCATION_FAILED)
    await handle.signal("reconcile")
    waiting = await wait_for(stack.env, handle, in_phase(Phase.UNKNOWN))
    await handle.signal("reconcile")  # the operator knows capacity is back: no 10-minute wait
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING), virtual_limit=timedelta(minutes=1))
    assert running.recent_operations[-1].updated_at - waiting.last_operation.updated_at < timedelta(minutes=1)
    await handle.signal("delete")
    await handle.result()


async def test_spot_vm_evicted_with_deallocate_is_started_again(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, priority="Spot", spot={"eviction_policy": "Deallocate"},
                     timeouts={"health_check_interval": "2m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    before_vm, before_disk = vm(stack), unique_id(stack)
    assert stack.emulator.evict(before_vm["id"])["evictionPolicy"] == "Deallocate"
    assert vm(stack)["powerState"] == "deallocated"
    # No signal: the periodic health check finds it and starts it.
    again = await wait_for(stack.env, handle, lambda s: any("started the deallocated VM vm1" in d
                                                            for d in descriptions(s)), step=timedelta(seconds=30))
    assert again.phase == Phase.RUNNING
    assert vm(stack)["id"] == before_vm["id"] and vm(stack)["powerState"] == "running"
    assert unique_id(stack) == before_disk
    await handle.signal("delete")
    await handle.result()
    assert stack.machine_resources() == []


async def test_creation_finding_its_vm_deallocated_starts_it_and_waits_in_unknown_without_capacity(
        stack: Stack) -> None:
    """A fresh workflow (say, after an operator terminated the old one) finds the VM deallocated."""
    from models.activity_io import EnsureVmInput
    from models.spec import MachineSpec
    from tests.workflows.helpers import machine_activity_env

    spec = MachineSpec.model_validate(spec_dict(subnet_id=stack.emulator.subnet_id))
    env = machine_activity_env()  # as the terminated workflow of the same machine did
    await env.run(stack.driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=await env.run(stack.driver.ensure_nic,
                                                                                         spec)))
    async with operator(stack) as azure:
        await (await azure.compute.virtual_machines.begin_deallocate(RG, "vm1")).result()
    before_vm, before_disk, puts = vm(stack), unique_id(stack), _vm_puts(stack)
    stack.emulator.add_fault("virtualMachines.start", name="vm1", times=1, **ALLOCATION_FAILED)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    waiting = await wait_for(stack.env, handle, in_phase(Phase.UNKNOWN, Phase.CRASH_LOOP_BACK_OFF, Phase.RUNNING))
    assert waiting.phase == Phase.UNKNOWN and "AllocationFailed" in waiting.last_error  # not a creation backoff
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING), step=timedelta(minutes=1),
                             virtual_limit=timedelta(minutes=12))
    assert any("started the deallocated VM vm1" in d for d in descriptions(running))
    assert vm(stack)["id"] == before_vm["id"] and unique_id(stack) == before_disk and _vm_puts(stack) == puts
    await handle.signal("delete")
    await handle.result()
    assert stack.machine_resources() == []
