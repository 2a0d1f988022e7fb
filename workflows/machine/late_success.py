"""A create Azure reported Failed may have finished all the same (karpenter-provider-azure #1907; Azure's
OSProvisioningTimedOut says the VM "may still finish provisioning"). Before the saga compensates a failed VM
create, it reads the VM once more: a VM of this machine that is Succeeded and running is the attempt's
result, not a leftover to delete. Its guest must still become healthy within timeouts.startup.
"""

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.activity_io import ActivityName
    from models.errors import ErrorType
    from models.inventory import Inventory
    from models.status import OperationState, Stage

from workflows.azure_calls import AzureCalls, error_text, error_type
from workflows.machine.bookkeeping import Machine
from workflows.machine.fallback import azure_code

# Failures that leave no VM of this attempt to keep: Azure refused the create (capacity, quota, the request
# itself, our credentials), or the name is another owner's.
_NOTHING_MADE = frozenset({ErrorType.CAPACITY_EXHAUSTED, ErrorType.INVALID_SPEC, ErrorType.AUTH_FAILED,
                           ErrorType.NOT_OWNED})


def _vm_create_failed(err: ActivityError) -> bool:
    return err.activity_type == ActivityName.ENSURE_VM.value and error_type(err) not in _NOTHING_MADE


async def finished_anyway(machine: Machine, azure: AzureCalls, err: ActivityError) -> Inventory | None:
    """The VM, when the create that failed with `err` finished after all (Succeeded, running, ours: find_vm
    refuses another owner's); None when the attempt is to be compensated as usual."""
    if not _vm_create_failed(err):
        return None
    try:
        vm = await azure.find_vm()
    except ActivityError as read_err:
        machine.log.info(f"could not read VM {azure.spec.name} after its failed create: {error_text(read_err)}")
        return None
    machine.vm_observed(vm)
    if not vm.vm_healthy:
        return None
    code = azure_code(err)[0] or error_type(err) or "an error"
    machine.operation(Stage.CREATE, OperationState.PROCESSING,
                      f"Azure reported the create of VM {vm.node_name} Failed ({code}), but the VM was finished "
                      "(Succeeded, running): kept, not compensated")
    return vm
