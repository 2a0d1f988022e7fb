"""Health watch of a Running machine: one status read on `reconcile` or every health_check_interval (every
minute while Unhealthy), and between those a probe of the guest every probe period when the spec has one.

A stopped or deallocated VM is started at once (never rebuilt); a VM that is missing or Failed makes the
machine Unknown, and is re-created (keeping its data disks) if still so after health_timeout. A resource
group that is gone makes it Unknown too, but nothing is re-created until the group exists again; so does a VM
azmc cannot read (a read that failed once its activity's retries were spent: a 403 at once, a 429 or 5xx after
READ_RETRY's tries), until a read works. A running VM whose health signals say it does not work makes the
machine Unhealthy: the repair ladder (repair.py).
"""

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.errors import ErrorType
    from models.status import OperationState, Phase, Stage

from workflows import policies
from workflows.azure_calls import AzureCalls, error_text, error_type
from workflows.machine import fallback, repair
from workflows.machine.bookkeeping import Machine
from workflows.machine.power_on import start_step, start_stopped_vm
from workflows.machine.signals import read_signals

RESOURCE_GROUP_NOT_FOUND = "resourcegroupnotfound"  # Azure's code, lower-cased
# While Unhealthy the VM is read this often, to see a repair work (an ARM read only for unhealthy machines).
UNHEALTHY_RECHECK = timedelta(minutes=1)
# While Unknown with no health timeout running (the VM unreadable, its resource group gone, another owner's VM
# under its name), the VM is read this often, to see it readable, back or released: none of these ends by azmc.
UNKNOWN_RECHECK = timedelta(minutes=10)


def resource_group_gone(err: BaseException) -> bool:
    return error_type(err) == ErrorType.NOT_FOUND and fallback.azure_code(err)[0].lower() == RESOURCE_GROUP_NOT_FOUND


def next_check_in(machine: Machine) -> timedelta:
    """Sparse while healthy, sooner when a failed start of a stopped VM is due to be tried again (the clock sets
    only the timer's length). The health timeout is a timer of its own (Healing.health_timeout, healing.py); while
    it runs, the interval is a moment longer, so that the two never fire together (the wait that ends on one
    cancels the other, which must not have fired yet)."""
    state = machine.state
    interval = state.spec.timeouts.health_check_interval
    if state.status.repair is not None:
        interval = min(interval, UNHEALTHY_RECHECK)
    elif machine.phase == Phase.UNKNOWN and state.unknown_since is None:
        interval = min(interval, UNKNOWN_RECHECK)
    if state.unknown_since is not None or state.status.repair is not None:
        interval += policies.SHORTEST_TIMER
    due = [s.next_retry_at for s in state.status.stalled if s.stage == Stage.POWER_ON and s.next_retry_at]
    if not due:
        return interval
    left = min(due) - workflow.now()
    return max(min(interval, left), policies.SHORTEST_TIMER)


async def check_health(machine: Machine, azure: AzureCalls, *, asked: bool = False, skip_wait: bool = False) -> bool:
    """Read the VM and its health signals. True: re-create it (missing or Failed for health_timeout, or the
    repair ladder's recreate step). `asked`: a `reconcile` came (read every signal); `skip_wait`: an operator's,
    which takes the next repair step at once."""
    state = machine.state
    machine.operation(Stage.HEALTH_CHECK, OperationState.PROCESSING, "reading the VM")
    try:
        inventory = await azure.find_vm()
    except ActivityError as err:
        if error_type(err) == ErrorType.NOT_OWNED:
            # Our name now holds someone else's VM (re-tagged, or ours deleted and theirs created): never
            # touched, never re-created over it; Unknown until an operator settles it.
            _nothing_to_act_on(machine, "the VM under this machine's name belongs to another owner")
            machine.operation(Stage.HEALTH_CHECK, OperationState.FAILED, "the VM under this machine's name belongs to "
                              "another owner: left alone; checking again at the next check", error=error_text(err),
                              retry_in=next_check_in(machine))
            return False
        if resource_group_gone(err):
            resource_group_is_gone(machine, err)
            return False
        vm_unreadable(machine, err)
        return False
    machine.vm_observed(inventory)
    if await fallback.evicted_spot_goes_regular(machine, azure, inventory):
        machine.healing.nothing_to_heal()
        return True
    if inventory.vm_stopped:
        machine.healing.nothing_to_heal()  # a stopped VM is never re-created: no health_timeout runs
        machine.health_unread(f"the VM was found {inventory.vm_state.power_state}")
        await start_stopped_vm(machine, azure, inventory)
        return False
    machine.unstalled(start_step(machine))
    if inventory.vm_healthy:
        machine.healing.healthy_again()
        bad = await read_signals(machine, azure, inventory, thorough=asked or machine.state.status.repair is not None)
        if bad:
            return await repair.unhealthy(machine, azure, bad, asked=skip_wait)
        was = machine.state.status.repair
        machine.healing.repaired()
        machine.set_phase(Phase.RUNNING)
        healed = f" (healthy again after {was.action or 'waiting'})" if was is not None else ""
        machine.operation(Stage.HEALTH_CHECK, OperationState.SUCCESSFUL,
                          f"VM {inventory.node_name} is running{healed}")
        return False
    machine.healing.repaired()
    if state.unknown_since is None:
        state.unknown_since = workflow.now()
    deadline = machine.healing.health_timeout()
    assert deadline is not None
    machine.set_phase(Phase.UNKNOWN)
    found = inventory.summary() if inventory.has_vm else "VM missing"
    machine.health_unread(found)
    if deadline.passed:  # its timer fired: the health timeout is over
        machine.operation(Stage.HEALTH_CHECK, OperationState.FAILED,
                          f"{found} for {state.spec.timeouts.health}: re-creating", error=found)
        return True
    machine.operation(Stage.HEALTH_CHECK, OperationState.FAILED, f"{found}; re-creating if still so after health "
                      "timeout", error=found, retry_in=max(deadline.left(), policies.SHORTEST_TIMER))
    return False


def resource_group_is_gone(machine: Machine, err: ActivityError) -> None:
    """The group and everything in it were deleted: nothing to start or re-create (azmc creates no resource
    groups), so no health timeout runs. Unknown shows it, and keeps the fleet sweep from signalling again."""
    state = machine.state
    _nothing_to_act_on(machine, f"resource group {state.spec.resource_group} does not exist")
    machine.operation(Stage.HEALTH_CHECK, OperationState.FAILED,
                      f"resource group {state.spec.resource_group} does not exist (deleted with everything in it): "
                      "azmc creates no resource groups, so nothing is re-created; checking again at the next "
                      "check, or on `reconcile` once it exists; `delete` ends the machine",
                      error=error_text(err), retry_in=next_check_in(machine))


def vm_unreadable(machine: Machine, err: ActivityError) -> None:
    """The VM could not be read, and the read's own retries are spent (Azure refused it, 403 AuthorizationFailed:
    at once; throttled or failing, 429 or 5xx: after READ_RETRY's tries, so a blip never gets here). azmc cannot
    tell whether the machine works: Unknown with Azure's code and message, read again every UNKNOWN_RECHECK (and on
    `reconcile`), Running again once a read says so. What it cannot see it does not change: no health timeout, no
    repair step, no start."""
    _nothing_to_act_on(machine, "the VM could not be read")
    machine.operation(Stage.HEALTH_CHECK, OperationState.FAILED,
                      f"could not read the VM ({fallback.azure_code(err)[0] or error_type(err) or 'no answer'}): "
                      "Unknown until a read works; nothing is repaired, started or re-created meanwhile; reading it "
                      f"again in {humanize(next_check_in(machine))}, or on `reconcile`",
                      error=error_text(err), retry_in=next_check_in(machine))


def _nothing_to_act_on(machine: Machine, why: str) -> None:
    """Unknown, and nothing azmc could do runs meanwhile (the health timeout, the repair ladder, a start due)."""
    machine.healing.nothing_to_heal()
    machine.unstalled(start_step(machine))
    machine.set_phase(Phase.UNKNOWN)
    machine.health_unread(why)
