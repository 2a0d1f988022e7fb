"""What creation finds first decides what it does: adopt a healthy VM, replace a Failed one, and
never take a leftover NIC for a VM (the MCM bug)."""

import pytest
from temporalio.exceptions import ApplicationError

from models.activity_io import EnsureVmInput
from models.spec import MachineSpec
from models.status import MachineStatus, Phase
from tests.workflows.helpers import in_phase, machine_activity_env, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

RUNNING_KINDS = ["disks", "disks", "networkInterfaces", "virtualMachines"]


def _descriptions(status: MachineStatus) -> list[str]:
    return [op.description for op in status.recent_operations]


async def _prepare(stack: Stack, *, vm: bool) -> MachineSpec:
    """Build what a crashed earlier run of the machine's workflow could have left: a NIC, and optionally its VM."""
    spec = MachineSpec.model_validate(spec_dict(subnet_id=stack.emulator.subnet_id))
    env = machine_activity_env()
    nic_id = await env.run(stack.driver.ensure_nic, spec)
    if vm:
        await env.run(stack.driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))
    return spec


def _vm_puts(stack: Stack) -> int:
    return stack.emulator.requests()["by_operation"].get("virtualMachines.put", 0)


async def test_leftover_nic_is_not_a_vm_creation_proceeds(stack: Stack) -> None:
    await _prepare(stack, vm=False)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED))
    assert running.phase == Phase.RUNNING and running.attempts == 1
    assert not any("adopting" in d for d in _descriptions(running))
    assert _vm_puts(stack) == 1
    assert stack.kinds() == RUNNING_KINDS
    await handle.signal("delete")
    await handle.result()
    assert stack.machine_resources() == []


async def test_healthy_vm_is_adopted_without_a_write(stack: Stack) -> None:
    await _prepare(stack, vm=True)
    puts_before = _vm_puts(stack)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED))
    assert running.phase == Phase.RUNNING
    assert any("adopting the running VM vm1" in d for d in _descriptions(running))
    assert _vm_puts(stack) == puts_before
    await handle.signal("delete")
    await handle.result()
    assert stack.machine_resources() == []


async def test_failed_vm_is_deleted_then_created_again(stack: Stack) -> None:
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                             stage="operation", times=1)
    with pytest.raises(ApplicationError):
        await _prepare(stack, vm=True)
    assert any(r["provisioningState"] == "Failed" for r in stack.emulator.resources("virtualMachines"))
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED))
    assert running.phase == Phase.RUNNING and running.attempts == 1
    # The Failed VM goes; the data disk its failed create made is data all the same: kept and attached.
    assert any("deleting it, keeping data disks vm1-data-0-data-disk, before creating it again" in d
               for d in _descriptions(running))
    assert any("re-created the VM, kept data disks vm1-data-0-data-disk" in d for d in _descriptions(running))
    assert stack.kinds() == RUNNING_KINDS
    assert [r["provisioningState"] for r in stack.emulator.resources("virtualMachines")] == ["Succeeded"]
    await handle.signal("delete")
    await handle.result()
    assert stack.machine_resources() == []
