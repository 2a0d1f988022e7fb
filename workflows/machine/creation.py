"""The creation saga: read what exists, ensure the NIC, ensure the VM; compensate and back off on failure.

The bug azmc exists to kill: a leftover NIC is never a VM. Creation decides on provider_id alone.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.errors import ErrorType
    from models.inventory import Inventory
    from models.naming import nic_name, public_ip_name
    from models.status import OperationState, Phase, Stage

from workflows import policies
from workflows.azure_calls import AzureCalls, error_text, error_type, suggested_delay
from workflows.deadlines import Deadline
from workflows.machine import fallback, late_success, recovery, startup
from workflows.machine.bookkeeping import Machine
from workflows.machine.deletion import remove_everything
from workflows.machine.health import resource_group_gone
from workflows.machine.power_on import start_stopped_vm
from workflows.machine.retrying import delete_or_gone
from workflows.machine.saga import Compensations

# Azure's refusal to delete a public IP a NIC still holds (the emulator's is the same code).
PUBLIC_IP_HELD = "PublicIPAddressCannotBeDeleted"


class AttemptFailed(Exception):
    def __init__(self, error: BaseException) -> None:
        super().__init__(error_text(error))
        self.kind = error_type(error)
        self.hint = suggested_delay(error)
        self.error = error


class StartFailed(Exception):
    """The VM exists, stopped, and would not start: the machine waits in Unknown (health watch), not here."""


async def _cleanup_after_vm(machine: Machine, azure: AzureCalls, created: list[str]) -> None:
    """Undo of ensure_vm: the VM (force), then the disks this attempt created. A data disk that existed before
    the attempt is never deleted."""
    await delete_or_gone(machine, Stage.COMPENSATE, f"delete VM {azure.spec.name}", lambda: azure.delete_vm(True))
    for disk in created:
        await delete_or_gone(machine, Stage.COMPENSATE, f"delete disk {disk}",
                             lambda disk=disk: azure.delete_disk(disk))  # type: ignore[misc]  # mypy cannot type a lambda's default argument


async def _delete_nic_unless_reusable(machine: Machine, azure: AzureCalls, nic: str) -> None:
    """Undo of ensure_nic, between two attempts.

    After a failed create Azure reserves the NIC for that VM (180 s): it refuses to delete it, but
    lets the same VM - same name, and our next attempt uses the same name - attach it again. So
    the NIC is kept for the next attempt instead of waiting the reservation out. Final cleanups
    (creation timeout, deletion) do not use this: they retry until the NIC is gone.
    """
    try:
        await azure.delete_nic(nic)
    except ActivityError as err:
        if error_type(err) != ErrorType.NIC_RESERVED:
            raise
        machine.operation(Stage.COMPENSATE, OperationState.SUCCESSFUL,
                          f"NIC {nic} is reserved for this VM: kept for the next attempt to reuse",
                          error=error_text(err))


async def _delete_public_ip_unless_held(machine: Machine, azure: AzureCalls, pip: str, nic: str) -> None:
    """Undo of the public IP ensure_nic made: deleted, unless the NIC holding it was kept for the next attempt
    (_delete_nic_unless_reusable), which reuses both; final cleanups delete it after the NIC."""
    try:
        await azure.delete_public_ip(pip)
    except ActivityError as err:
        if fallback.azure_code(err)[0] != PUBLIC_IP_HELD:
            raise
        machine.operation(Stage.COMPENSATE, OperationState.SUCCESSFUL,
                          f"public IP {pip} is on NIC {nic}, kept for the next attempt: kept with it",
                          error=error_text(err))


async def _show_leftovers(machine: Machine, azure: AzureCalls) -> None:
    """After compensating, read everything once, so CrashLoopBackOff shows what really is left (say, a
    reserved NIC kept for the next attempt): attempts themselves read only the VM."""
    try:
        machine.inventory(await azure.read_inventory())
    except ActivityError as err:
        machine.log.info(f"could not read what is left after compensating: {error_text(err)}")


async def _attempt(machine: Machine, azure: AzureCalls, undo: Compensations) -> Inventory:
    attempt = machine.state.status.attempts
    machine.operation(Stage.CREATE, OperationState.PROCESSING, f"attempt {attempt}: reading what exists")
    inventory = await azure.find_vm()
    machine.vm_observed(inventory)
    if inventory.vm_healthy:
        machine.operation(Stage.CREATE, OperationState.PROCESSING, f"adopting the running VM {inventory.node_name}")
        return inventory
    if inventory.vm_stopped:
        if not await start_stopped_vm(machine, azure, inventory):
            raise StartFailed()
        return machine.state.status.inventory
    attach = await recovery.disks_to_attach(machine, azure, inventory)
    # With no provider_id there is no VM, whatever NIC or disks are left: create (ensure_* reuse them).
    nic = nic_name(azure.spec.name)
    if azure.spec.public_ip is not None:  # undone after the NIC (unwound in reverse), which must let go of it
        pip = public_ip_name(azure.spec.name)
        undo.register(f"delete public IP {pip}", lambda: delete_or_gone(
            machine, Stage.COMPENSATE, f"delete public IP {pip}",
            lambda: _delete_public_ip_unless_held(machine, azure, pip, nic)))
    undo.register(f"delete NIC {nic}", lambda: delete_or_gone(machine, Stage.COMPENSATE, f"delete NIC {nic}",
                                                              lambda: _delete_nic_unless_reusable(machine, azure, nic)))
    with_ip = f"public IP {public_ip_name(azure.spec.name)} and " if azure.spec.public_ip is not None else ""
    machine.operation(Stage.CREATE, OperationState.PROCESSING, f"attempt {attempt}: ensuring {with_ip}NIC {nic}")
    nic_id = await azure.ensure_nic()
    created = recovery.created_by_attempt(azure.spec, attach)
    undo.register(f"delete VM {azure.spec.name} and the disks this attempt created",
                  lambda: _cleanup_after_vm(machine, azure, created))
    machine.operation(Stage.CREATE, OperationState.PROCESSING, f"attempt {attempt}: ensuring VM {azure.spec.name}"
                      + (f", attaching the existing data disks {recovery.disk_names(attach)}" if attach else ""))
    inventory = await azure.ensure_vm(nic_id, attach, vm_absent=not inventory.has_vm)
    machine.inventory(inventory)
    if not inventory.vm_healthy:
        state = inventory.vm_state
        raise ApplicationError(f"VM is {state.provisioning_state}/{state.power_state or '?'} after create",
                               type=ErrorType.TRANSIENT)
    if attach:
        machine.operation(Stage.CREATE, OperationState.PROCESSING,
                          f"re-created the VM, kept data disks {recovery.disk_names(attach)}")
    return inventory


async def _healthy_vm(machine: Machine, azure: AzureCalls, undo: Compensations, deadline: Deadline) -> Inventory:
    """One attempt's VM, running and healthy. A create Azure reported Failed whose VM finished anyway is kept
    (late_success), read before the saga compensates it."""
    try:
        inventory = await _attempt(machine, azure, undo)
    except ActivityError as err:
        finished = await late_success.finished_anyway(machine, azure, err)
        if finished is None:
            raise
        inventory = finished
    return await startup.until_healthy(machine, azure, inventory, deadline)


@dataclass(frozen=True)
class Wake:
    """How an operator's `reconcile` cuts a CrashLoopBackOff wait short ("re-check Azure now")."""

    requested: Callable[[], bool]  # has an operator asked to reconcile since the last wake?
    clear_request: Callable[[], None]  # the request is being acted on: the next wait waits again


async def _back_off(machine: Machine, delay: timedelta, wake: Wake, deadline: Deadline) -> None:
    try:
        await workflow.wait_condition(lambda: wake.requested() or deadline.passed, timeout=delay,
                                      timeout_summary="CrashLoopBackOff: wait before the next creation attempt")
    except TimeoutError:
        return
    if deadline.passed:
        return
    wake.clear_request()
    machine.log.info("reconcile: retrying creation now instead of waiting out the backoff")


async def create_machine(machine: Machine, azure: AzureCalls, drain_timeout: timedelta, wake: Wake) -> None:
    """Attempts until Running, or Failed (with everything cleaned up) past the creation timeout."""
    state = machine.state
    if state.creation_started_at is None:
        state.creation_started_at = workflow.now()
        state.status.attempts = 0
    deadline = Deadline(state.creation_started_at + state.spec.timeouts.creation, "creation timeout")
    try:
        await _until_running_or_timed_out(machine, azure, drain_timeout, wake, deadline)
    finally:
        deadline.cancel()


async def _until_running_or_timed_out(machine: Machine, azure: AzureCalls, drain_timeout: timedelta, wake: Wake,
                                      deadline: Deadline) -> None:
    state = machine.state
    if machine.phase == Phase.PENDING:
        # Asking for an offering is the attempt's first step: Creating now, in the task that began the
        # creation, spares a workflow task with an upsert of its own.
        machine.set_phase(Phase.CREATING)
    while True:
        chosen = await fallback.choose_offering(machine, azure, wake.requested, wake.clear_request, deadline)
        if chosen is None:
            break  # every offering refused until the creation timeout
        (offering, skipped) = chosen
        attempt_azure = fallback.for_offering(azure, offering, machine.size_accelerated)
        state.status.attempts += 1
        fallback.begin_attempt(machine, offering, skipped)
        machine.set_phase(Phase.CREATING)
        undo = Compensations(machine)
        try:
            with machine.trace.step("attempt", **{"azmc.attempt": state.status.attempts,
                                                  "azmc.offering": offering.describe()}):
                inventory = await _healthy_vm(machine, attempt_azure, undo, deadline)
        except StartFailed:
            # The VM exists and is kept: the health watch (Unknown) starts it again after the backoff.
            state.creation_started_at = None
            await fallback.release_probes(machine, azure, "its stopped VM would not start")
            return
        except (ActivityError, ApplicationError) as err:
            failure = AttemptFailed(err)
        else:
            undo.forget()
            await fallback.attempt_worked(machine, azure, offering)
            state.creation_started_at = None
            machine.healing.repaired()
            machine.operation(Stage.CREATE, OperationState.SUCCESSFUL, f"VM {inventory.node_name} is running")
            machine.set_phase(Phase.RUNNING)
            return
        failed_at = workflow.now()
        machine.set_phase(Phase.CRASH_LOOP_BACK_OFF)
        machine.operation(Stage.CREATE, OperationState.FAILED, f"attempt {state.status.attempts} failed; compensating",
                          error=str(failure))
        # The memory hears of a refusal before compensating: the undo can take minutes (a failed VM's NIC
        # stays reserved 180 s), and meanwhile other machines would ask for the refused offering too.
        refusal = await fallback.remember_refusal(machine, azure, offering, failure.error)
        with machine.trace.step("compensate"):
            await undo.unwind()
        if resource_group_gone(failure.error):
            # azmc creates no resource groups: no attempt can work until an operator creates it.
            await _fail(machine, azure, drain_timeout,
                        f"resource group {state.spec.resource_group} does not exist: azmc creates no resource "
                        "groups; create it, then send `reconcile` (or `delete`)")
            return
        await _show_leftovers(machine, azure)
        if deadline.passed:
            break
        if refusal is not None:
            fallback.next_offering_at_once(machine, offering, refusal, failure.error)
            continue  # the next offering, at once
        # The backoff counts from the failure: time spent compensating is part of it. Always a timer (the clock
        # sets only its length), which the creation timeout's timer cuts short; never capped to end with it: two
        # timers firing together would have the one cancelled that had already fired.
        backoff = policies.creation_backoff(state.status.attempts, failure.kind, failure.hint)
        delay = max(failed_at + backoff - workflow.now(), policies.SHORTEST_TIMER)
        attempt = f"attempt {state.status.attempts} failed ({failure.kind or 'error'})"
        shown = min(delay, deadline.left())
        machine.operation(Stage.CREATE, OperationState.FAILED, f"{attempt}; next attempt in {humanize(shown)}",
                          error=str(failure), retry_in=shown)
        with machine.trace.step("backoff", **{"azmc.wait_s": delay.total_seconds()}):
            await _back_off(machine, delay, wake, deadline)
        if deadline.passed:
            break
    await _fail(machine, azure, drain_timeout)


async def _fail(machine: Machine, azure: AzureCalls, drain_timeout: timedelta, refused: str = "") -> None:
    """Failed, and nothing left but the data disks: past the creation timeout, or at once on a refusal only an
    operator can end (`refused` says which and what to do)."""
    state = machine.state
    state.creation_started_at = None
    cause = state.status.last_error  # the cleanup's own successes would clear it; operators need it
    machine.set_phase(Phase.FAILED)
    await fallback.release_probes(machine, azure, "refused" if refused else "creation timed out")
    why = refused or f"not running after {state.spec.timeouts.creation}"
    machine.operation(Stage.CREATE, OperationState.FAILED, f"{why}; cleaning up", error=cause)
    # The compensations already ran; this makes sure, by reading Azure, that nothing is left - but the
    # data disks: only `delete` deletes data.
    kept = await remove_everything(machine, azure, drain=False, force=True, drain_timeout=drain_timeout,
                                   keep_data_disks=True)
    left = f"nothing left in Azure but the data disks {recovery.disk_names(kept)} (kept)" if kept else \
        "nothing left in Azure"
    ending = f"{refused}; {left}" if refused else \
        f"creation timed out; {left}; send `reconcile` to try again or `delete`"
    machine.operation(Stage.CREATE, OperationState.FAILED, ending, error=cause)
