"""The repair ladder of an Unhealthy machine: its VM runs, but a health signal says the guest or the host does
not work. Wait timeouts.health in case it recovers by itself, then take each step of spec.health.repair in turn
(restart, redeploy, re-create keeping the data disks), each given its `wait` to make the machine healthy before
the next. Every step is an operation in the status and the history; `reconcile` skips the current wait. A pool's
machine takes each step only once its pool allows it.
"""

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.health import RepairAction, RepairStep
    from models.health_io import PLATFORM_INITIATED
    from models.status import HealthSignal, OperationState, Phase, RepairProgress, Stage

from workflows import policies
from workflows.azure_calls import AzureCalls, error_text
from workflows.machine import recovery
from workflows.machine.bookkeeping import Machine
from workflows.machine.signals import RESOURCE_HEALTH, describe, last_signal

OUTAGE_HOLD = ("Azure reports a platform-initiated outage: not re-created while it lasts (`reconcile` re-creates "
               "anyway)")


def _next(machine: Machine) -> RepairStep | None:
    progress = machine.state.status.repair
    steps = machine.state.spec.health.repair
    index = (progress.step if progress is not None else -1) + 1
    return steps[index] if index < len(steps) else None


async def unhealthy(machine: Machine, azure: AzureCalls, bad: list[HealthSignal], *, asked: bool) -> bool:
    """The check found the running VM unhealthy. True: re-create it now (the ladder's recreate step)."""
    status = machine.state.status
    why = describe(bad)
    machine.set_phase(Phase.UNHEALTHY)
    if status.repair is None:
        status.repair = RepairProgress(started_at=workflow.now())
        machine.log.warning(f"unhealthy: {why}")
    following = _next(machine)
    deadline = machine.healing.repair_deadline()
    if following is None:
        if not asked:
            machine.operation(Stage.REPAIR, OperationState.FAILED,
                              f"unhealthy: {why}; every repair step was taken: left as it is until it recovers or "
                              "an operator acts (`reconcile` starts the repairs again, `delete` ends it)", error=why)
            return False
        status.repair = RepairProgress(started_at=workflow.now())  # `reconcile`: from the first step again
        following = _next(machine)
        assert following is not None
    elif not asked and not (status.repair and status.repair.held) and (deadline is None or not deadline.passed):
        left = deadline.left() if deadline is not None else policies.SHORTEST_TIMER
        machine.operation(Stage.HEALTH_CHECK, OperationState.FAILED,
                          f"unhealthy: {why}; {following.action} if still so in {humanize(left)}", error=why,
                          retry_in=max(left, policies.SHORTEST_TIMER))
        return False
    if following.action == RepairAction.RECREATE and not asked and _azure_is_healing(machine):
        # A platform-initiated outage (a host, a region): Azure heals it, and a wave of re-creations would not help.
        # Held: re-checked every minute (no timer of the passed wait), re-created if unhealthy once it is over.
        machine.healing.hold(OUTAGE_HOLD)
        machine.operation(Stage.REPAIR, OperationState.FAILED, f"unhealthy: {why}; {OUTAGE_HOLD}", error=why)
        return False
    return await _take(machine, azure, following, why)


def _azure_is_healing(machine: Machine) -> bool:
    said = last_signal(machine, RESOURCE_HEALTH)
    return said is not None and not said.healthy and PLATFORM_INITIATED in said.reason


def _pool_allows(machine: Machine, step: RepairStep, why: str) -> bool:
    """A pool's machine takes a step only once its pool allows it (max_unhealthy, max_replacements): asked once per
    step, the hold and the pool's answer carried in the status, the step taken at the check after the answer
    (workflows/pool/repairs.py)."""
    progress = machine.state.status.repair
    if machine.pool_notices.pool_id is None or progress is None or progress.allowed == step.action:
        return True
    hold = f"{step.action} waits for pool {machine.state.spec.pool} to allow it (max_unhealthy, max_replacements)"
    if progress.held != hold or progress.allowed:  # not asked yet, or allowed another step than this one
        machine.healing.hold(hold)
        machine.pool_notices.repair_wanted(step.action)
        machine.operation(Stage.REPAIR, OperationState.PROCESSING, f"unhealthy ({why}): {hold}", error=why)
    return False


async def _take(machine: Machine, azure: AzureCalls, step: RepairStep, why: str) -> bool:
    if not _pool_allows(machine, step, why):
        return False
    status = machine.state.status
    steps = machine.state.spec.health.repair
    index = steps.index(step)
    status.repair = RepairProgress(step=index, action=step.action, started_at=workflow.now())
    machine.healing.repair_deadline()  # the step's wait starts now
    machine.trace.note(repair_step=step.action.value)
    counted = f"step {index + 1} of {len(steps)}"
    if step.action == RepairAction.RECREATE:
        inventory = status.inventory
        machine.operation(Stage.REPAIR, OperationState.PROCESSING,
                          f"unhealthy ({why}): re-creating the VM, keeping its data disks ({counted})", error=why)
        await recovery.make_data_disks_survive(machine, azure, inventory, Stage.REPAIR)
        await azure.delete_vm(True)
        return True
    machine.operation(Stage.REPAIR, OperationState.PROCESSING, f"unhealthy ({why}): {step.action} ({counted})",
                      error=why)
    try:
        with machine.trace.step(f"repair {step.action.value}"):
            vm = await (azure.restart_vm() if step.action == RepairAction.RESTART else azure.redeploy_vm())
    except ActivityError as err:
        machine.operation(Stage.REPAIR, OperationState.FAILED,
                          f"{step.action} failed; the next step follows if still unhealthy in {humanize(step.wait)}",
                          error=error_text(err), retry_in=step.wait)
        return False
    machine.vm_observed(vm)
    then = _next(machine)
    machine.operation(Stage.REPAIR, OperationState.SUCCESSFUL,
                      f"{step.action} done; waiting up to {humanize(step.wait)} for the machine to be healthy"
                      + (f", then {then.action}" if then is not None else ""), retry_in=step.wait)
    return False
