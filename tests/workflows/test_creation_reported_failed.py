"""A creation Azure reported Failed but finished is kept (issue 25; karpenter-provider-azure #1907): before
compensating a failed create, the saga reads the VM once more, and a VM of this machine that is Succeeded and
running is the attempt's result, not a leftover to delete. A VM really Failed is still compensated, tried again.

The create's own activity retries (policies.CREATE_RETRY) already adopt a VM that finished by their next try;
what they leave to the saga is a create reported Failed on their last try, set up here by two refusals first.
The worker's shared status reads see a VM that finished as Succeeded and never ask its operation: the saga's read
matters where the operation itself is polled (a principal that may not list the subscription's VMs, as here).
"""

import asyncio
import time
from datetime import timedelta

from models.status import MachineStatus, Phase
from tests.workflows.data_disks import RG, descriptions, operator, vm
from tests.workflows.helpers import in_phase, spec_dict, start_machine, status_of, wait_for, wait_status
from tests.workflows.stack import Stack

# The create's operation runs this long (wall seconds) before it reports Failed: time for the test to read the
# VM it made while the workflow waits for it.
CREATING_S = 1.0
KEPT = "but the VM was finished (Succeeded, running): kept, not compensated"


def _requests(stack: Stack, operation: str) -> int:
    return stack.emulator.requests()["by_operation"].get(f"virtualMachines.{operation}", 0)


async def _vm_id(stack: Stack) -> str:
    async with operator(stack) as azure:
        return str((await azure.compute.virtual_machines.get(RG, "vm1")).vm_id)


async def _vm_id_while_created(stack: Stack) -> str:
    """The vmId of the VM the reported-Failed create makes, read while its operation still runs."""
    deadline = time.monotonic() + 30
    while vm(stack) is None:
        assert time.monotonic() < deadline, "no VM was created"
        await asyncio.sleep(0.02)  # the worker runs on this loop: never block it
    return await _vm_id(stack)


def _polled_one_by_one(stack: Stack) -> None:
    """The principal may not list the subscription's VMs: every operation is polled (activities/lro.py)."""
    stack.emulator.add_fault("virtualMachines.list", status=403, code="AuthorizationFailed", times=-1)


def _create_reported_failed(stack: Stack, late_success_s: float | None) -> None:
    """The VM create's operation ends Failed (OSProvisioningTimedOut); with `late_success_s` the VM finishes."""
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=500, code="OSProvisioningTimedOut",
                             stage="operation", delay_s=CREATING_S, late_success_s=late_success_s)


async def _ended(stack: Stack, handle) -> MachineStatus:
    return await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED), step=timedelta(seconds=5))


async def test_a_creation_reported_failed_but_finished_is_kept(stack: Stack) -> None:
    # The create activity's first two tries are refused (Azure's retryable 409); its last is accepted, then reported
    # Failed, though the VM finishes: no try of the activity is left to see it, the saga's own read does.
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="RetryableError", times=2)
    _create_reported_failed(stack, late_success_s=0)
    _polled_one_by_one(stack)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    vm_id = await _vm_id_while_created(stack)
    running = await _ended(stack, handle)
    assert running.phase == Phase.RUNNING and running.attempts == 1
    assert await _vm_id(stack) == vm_id  # the same VM, kept
    assert _requests(stack, "put") == 3 and _requests(stack, "delete") == 0  # two refused, one reported Failed
    kept = [d for d in descriptions(running) if KEPT in d]
    assert kept == [f"Azure reported the create of VM vm1 Failed (OSProvisioningTimedOut), {KEPT}"]
    assert running.health and all(signal.healthy for signal in running.health)  # its guest too, as any new VM's
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED


async def test_a_creation_reported_failed_that_the_status_reads_see_finished_is_simply_running(
        stack: Stack) -> None:
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="RetryableError", times=2)
    _create_reported_failed(stack, late_success_s=0)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    vm_id = await _vm_id_while_created(stack)
    running = await _ended(stack, handle)
    assert running.phase == Phase.RUNNING and running.attempts == 1 and await _vm_id(stack) == vm_id
    assert _requests(stack, "delete") == 0 and not any("failed" in d for d in descriptions(running))
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED


async def test_a_kept_vm_whose_guest_never_starts_is_compensated_after_the_startup_timeout(stack: Stack) -> None:
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="RetryableError", times=2)
    _create_reported_failed(stack, late_success_s=0)
    _polled_one_by_one(stack)
    stack.emulator.add_guest_fault("vm1", "boot_failure")  # the kept VM never boots; it ends with its deletion
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"startup": "3m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    kept_vm_id = await _vm_id_while_created(stack)
    seen: list[MachineStatus] = []
    running = await wait_status(stack.env, lambda: status_of(handle), in_phase(Phase.RUNNING),
                                step=timedelta(seconds=30), virtual_limit=timedelta(hours=1), seen=seen)
    assert running.attempts == 2 and await _vm_id(stack) != kept_vm_id
    assert any(KEPT in d for status in seen for d in descriptions(status))
    assert any(d.startswith("attempt 1 failed (GuestNotReady)") for d in descriptions(running))
    assert _requests(stack, "delete") == 1
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED


async def test_a_creation_really_failed_is_compensated_and_tried_again(stack: Stack) -> None:
    _create_reported_failed(stack, late_success_s=None)  # the VM stays Failed
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    failed_vm_id = await _vm_id_while_created(stack)
    running = await _ended(stack, handle)
    assert running.phase == Phase.RUNNING and running.attempts == 2
    assert await _vm_id(stack) != failed_vm_id  # a new VM: the Failed one was deleted
    assert _requests(stack, "delete") == 1
    assert not any(KEPT in d for d in descriptions(running))
    assert any("attempt 1 failed; compensating" in d for d in descriptions(running))
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
