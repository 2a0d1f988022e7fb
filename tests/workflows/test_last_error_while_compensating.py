"""While a failed attempt is compensated, the machine's last error stays the failure being undone.

A compensation step's success is not the machine's: before, it cleared `last_error`, so until the failed
attempt was recorded with its backoff, `describe` of a machine in CrashLoopBackOff showed no error at all.
"""

from datetime import timedelta

from models.status import MachineStatus, OperationState, Phase, Stage
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack


async def test_the_failure_stays_the_last_error_through_its_compensation(stack: Stack) -> None:
    emulator = stack.emulator
    # Attempt 1's VM fails in Azure (its activity retries, then the saga compensates: VM, then its NIC).
    emulator.add_fault("virtualMachines.put", name="vm1", status=500, code="InternalExecutionError",
                       stage="operation", times=3)
    # The NIC's delete is slow, so the status can be read after the VM's delete succeeded, before it ends.
    emulator.add_fault("networkInterfaces.delete", name="vm1-nic", status=0, delay_s=3)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))

    def deleting_the_nic(status: MachineStatus) -> bool:
        operation = status.last_operation
        return (operation is not None and operation.stage == Stage.COMPENSATE
                and operation.state == OperationState.PROCESSING and "vm1-nic" in operation.description)

    compensating = await wait_for(stack.env, handle, deleting_the_nic, step=timedelta(milliseconds=200))
    assert any(entry.stage == Stage.COMPENSATE and entry.state == OperationState.SUCCESSFUL
               for entry in compensating.recent_operations), "a compensation step succeeded before"
    assert compensating.phase == Phase.CRASH_LOOP_BACK_OFF
    assert "InternalExecutionError" in compensating.last_error
    assert (await wait_for(stack.env, handle, in_phase(Phase.RUNNING))).last_error == ""
