"""Preservation: a `preserve` signal keeps a machine as it is, for diagnosis (MCM's preserve).

The VM is deallocated (Azure releases the compute; the VM, its NIC and disks stay), and from then on the
machine is never started, health-checked, re-created or healed again: a `reconcile` is refused, visibly.
Only `delete` ends it, and removes everything as for any machine. A Failed machine stays Failed; any
other becomes Unknown (its VM is not running, on purpose), which the fleet sweep leaves alone.
"""

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorType
    from models.inventory import Inventory
    from models.requests import PreserveRequest
    from models.status import OperationState, Phase, Stage

from workflows.azure_calls import AzureCalls, error_text, error_type
from workflows.machine.bookkeeping import Machine
from workflows.machine.retrying import until_done


def reason_of(request: PreserveRequest) -> str:
    return request.reason or "no reason given"


def mark_preserved(machine: Machine, request: PreserveRequest) -> None:
    """From the moment the signal is acted on: no healing; the status says preserved, and why."""
    state, status = machine.state, machine.state.status
    if not status.preserved:
        status.preserved, status.preserved_reason, status.preserved_at = True, reason_of(request), workflow.now()
        machine.tell_pool()  # a pool's machine preserved on its own: its pool stops counting it
    state.creation_started_at = None
    machine.healing.nothing_to_heal()  # no health timeout or repair for a preserved machine
    machine.clear_stalled()
    if machine.phase != Phase.FAILED:
        machine.set_phase(Phase.UNKNOWN)


async def preserve_machine(machine: Machine, azure: AzureCalls, request: PreserveRequest) -> None:
    """Deallocate the VM (retried until done: a preserved machine must not keep its compute running)."""
    mark_preserved(machine, request)
    name = azure.spec.name
    reason = machine.state.status.preserved_reason
    machine.operation(Stage.PRESERVE, OperationState.PROCESSING,
                      f"preserving ({reason}): deallocating VM {name}, keeping its disks and NIC; "
                      "no health check, start or re-creation until `delete`")
    # A call an interrupted flow left in flight (a VM PUT, a start) must land before the deallocation.
    await azure.settle()
    step = f"deallocate VM {name}"
    kept = await until_done(machine, Stage.PRESERVE, step, lambda: _deallocate(machine, azure))
    if kept is None:
        left = f"VM {name} belongs to another owner: left alone"
    elif kept.has_vm and kept.vm_state.power_state == "stopped":  # an ephemeral OS disk: Azure cannot deallocate
        machine.inventory(kept)
        left = f"VM {name} powered off (its ephemeral OS disk cannot be deallocated; compute still billed), " \
               "disks and NIC kept"
    elif kept.has_vm:
        machine.inventory(kept)
        left = f"VM {name} deallocated, disks and NIC kept"
    else:
        left = "no VM to deallocate (what is left is kept)"
    machine.operation(Stage.PRESERVE, OperationState.SUCCESSFUL,
                      f"preserved ({reason}): {left}; healing stopped until `delete`")


async def _deallocate(machine: Machine, azure: AzureCalls) -> Inventory | None:
    try:
        return await azure.deallocate_vm()
    except ActivityError as err:
        if error_type(err) == ErrorType.NOT_OWNED:
            machine.operation(Stage.PRESERVE, OperationState.FAILED, "the VM under this machine's name is not ours",
                              error=error_text(err))
            return None
        raise


def refuse_reconcile(machine: Machine) -> None:
    machine.operation(Stage.PRESERVE, OperationState.SUCCESSFUL,
                      f"reconcile ignored: the machine is preserved ({machine.state.status.preserved_reason}); "
                      "it is never started or re-created; `delete` removes it")
