"""A new VM is not a machine until its guest works: after creation, wait until every health signal says healthy,
within timeouts.startup (and the creation timeout). A guest that never does (its bootstrap failed) fails the
creation attempt: it is compensated and tried again as any failed attempt is.
"""

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.errors import ErrorType
    from models.inventory import Inventory
    from models.status import OperationState, Stage

from workflows.azure_calls import AzureCalls
from workflows.deadlines import Deadline, timeout_clear_of
from workflows.machine.bookkeeping import Machine
from workflows.machine.signals import describe, new_vm, read_signals

# How often a starting guest is looked at: a VM read (and a probe) each time, for minutes at most.
STARTUP_RECHECK = timedelta(seconds=15)


def _asks_nothing(machine: Machine) -> bool:
    health = machine.state.spec.health
    return not (health.vm_agent or health.resource_health or health.probe is not None)


async def until_healthy(machine: Machine, azure: AzureCalls, vm: Inventory, creation: Deadline) -> Inventory:
    """The VM `vm` runs. Returns it once healthy; raises GuestNotReady at the startup or creation timeout."""
    new_vm(machine)
    if _asks_nothing(machine):
        return vm
    limit, began = machine.state.spec.timeouts.startup, workflow.now()
    # Its timer starts at the first wait: a guest healthy at the first look (most) adds no timer to the history.
    startup = None
    try:
        while True:
            if machine.state.spec.health.vm_agent and not vm.vm_state.agent:
                vm = await _read(machine, azure)  # creation's answer has no instance view: the agent is unknown
            bad = await read_signals(machine, azure, vm, thorough=False)
            if not bad:
                return vm
            startup = startup or Deadline(began + limit, "startup timeout")
            if startup.passed or creation.passed:
                which = f"timeouts.startup ({humanize(limit)})" if startup.passed else "the creation timeout"
                raise ApplicationError(f"the guest of VM {vm.node_name} was not healthy within {which}: "
                                       f"{describe(bad)}", type=ErrorType.GUEST_NOT_READY)
            machine.operation(Stage.CREATE, OperationState.PROCESSING,
                              f"VM {vm.node_name} runs; waiting for its guest: {describe(bad)}",
                              retry_in=STARTUP_RECHECK)
            await _recheck_after(startup, creation)
            vm = await _read(machine, azure)
    finally:
        if startup is not None:
            startup.cancel()


async def _recheck_after(startup: Deadline, creation: Deadline) -> None:
    """STARTUP_RECHECK, or until a timeout passes if it ends first."""
    try:
        await workflow.wait_condition(lambda: startup.passed or creation.passed,
                                      timeout=timeout_clear_of(STARTUP_RECHECK, (startup, creation)))
    except TimeoutError:
        pass


async def _read(machine: Machine, azure: AzureCalls) -> Inventory:
    vm = await azure.find_vm()
    machine.vm_observed(vm)
    if not vm.vm_healthy:
        state = vm.vm_state
        raise ApplicationError(f"VM is {state.provisioning_state or 'gone'}/{state.power_state or '?'} while its "
                               "guest starts", type=ErrorType.TRANSIENT)
    return vm
