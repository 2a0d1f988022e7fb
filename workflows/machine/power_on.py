"""Power on: a stopped or deallocated VM (out of band, a Spot eviction with policy Deallocate) is started
again, never rebuilt: it keeps its id, its NIC and its disks.

A start that fails (AllocationFailed: no capacity to start a deallocated VM) leaves the machine Unknown,
the reason in the status and the step listed as waiting; the next health check (at the backoff's end, or
at once on `reconcile`) starts it again. Capacity waits the capacity backoff, as creation does.
"""

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.inventory import Inventory
    from models.status import OperationState, Phase, Stage

from workflows import policies
from workflows.azure_calls import AzureCalls, error_text, error_type, suggested_delay
from workflows.machine.bookkeeping import Machine


def start_step(machine: Machine) -> str:
    """The waiting-step name of the start, the same in every run (retries count from its entry)."""
    return f"start VM {machine.state.spec.name}"


async def start_stopped_vm(machine: Machine, azure: AzureCalls, inventory: Inventory) -> bool:
    """Start the VM `inventory` found stopped. True when it runs; False when the start failed (Unknown)."""
    power = inventory.vm_state.power_state
    name = inventory.node_name
    step = start_step(machine)
    machine.operation(Stage.POWER_ON, OperationState.PROCESSING,
                      f"VM {name} is {power}: starting it (a stopped VM is started again, never rebuilt)")
    try:
        started = await azure.start_vm(power)
    except ActivityError as err:
        before = next((s for s in machine.state.status.stalled if s.description == step), None)
        failures = (before.failures if before else 0) + 1
        kind = error_type(err)
        delay = policies.creation_backoff(failures, kind, suggested_delay(err))
        machine.set_phase(Phase.UNKNOWN)
        machine.stalled(Stage.POWER_ON, step, error_text(err), failures, delay)
        machine.operation(Stage.POWER_ON, OperationState.FAILED,
                          f"could not start the {power} VM {name} ({kind or 'error'}, failure {failures}); "
                          f"next try in {humanize(delay)}", error=error_text(err), retry_in=delay)
        return False
    machine.unstalled(step)
    machine.inventory(started)
    machine.set_phase(Phase.RUNNING)
    machine.operation(Stage.POWER_ON, OperationState.SUCCESSFUL, f"started the {power} VM {name}")
    return True
