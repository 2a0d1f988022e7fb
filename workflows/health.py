"""Health watch of a Running machine: one status read on `reconcile` or every health_check_interval."""

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.status import OperationState, Phase, Stage

from workflows.azure_calls import AzureCalls, error_text
from workflows.presentation import Presenter


def next_check_in(p: Presenter) -> timedelta:
    """Sparse while healthy; while Unknown, also wake exactly when health_timeout runs out."""
    state = p.state
    interval = state.spec.timeouts.health_check_interval
    if state.unknown_since is None:
        return interval
    left = state.unknown_since + state.spec.timeouts.health - workflow.now()
    return max(min(interval, left), timedelta(seconds=1))


async def check_health(p: Presenter, azure: AzureCalls) -> bool:
    """Read the VM. Returns True when it has been missing or unhealthy for health_timeout: re-create it."""
    state = p.state
    p.operation(Stage.HEALTH_CHECK, OperationState.PROCESSING, "reading the VM")
    try:
        inventory = await azure.vm_for_decision()
    except ActivityError as err:
        # Cannot tell (Azure unreachable, throttled): keep the phase, try again at the next check.
        p.operation(Stage.HEALTH_CHECK, OperationState.FAILED, "could not read the VM", error=error_text(err))
        return False
    p.vm_observed(inventory)
    if inventory.vm_healthy:
        state.unknown_since = None
        p.set_phase(Phase.RUNNING)
        p.operation(Stage.HEALTH_CHECK, OperationState.SUCCESSFUL, f"VM {inventory.node_name} is running")
        return False
    now = workflow.now()
    if state.unknown_since is None:
        state.unknown_since = now
    p.set_phase(Phase.UNKNOWN)
    found = inventory.summary() if inventory.has_vm else "VM missing"
    deadline = state.unknown_since + state.spec.timeouts.health
    if now >= deadline:
        p.operation(Stage.HEALTH_CHECK, OperationState.FAILED,
                    f"{found} for {state.spec.timeouts.health}: re-creating", error=found)
        return True
    p.operation(Stage.HEALTH_CHECK, OperationState.FAILED,
                f"{found}; re-creating if still so after health timeout", error=found, retry_in=deadline - now)
    return False
