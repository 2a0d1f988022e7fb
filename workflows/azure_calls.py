"""The driver activities as the workflow calls them: by name, typed results, options and UI summaries.

Workflows never import activities/ (they must stay deterministic, and may run in Temporal's sandbox), so each
call names its activity (models.activity_io.ActivityName) and states its result_type.
"""

import asyncio
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError, FailureError, TimeoutError

with workflow.unsafe.imports_passed_through():
    from models.activity_io import (
        ActivityName,
        DataDiskDeleteOptionInput,
        DeleteResourceInput,
        DeleteVmInput,
        EnsureVmInput,
        MachineRef,
    )
    from models.errors import ErrorType
    from models.health_io import ProbeInput, ProbeResult, ResourceHealthReading
    from models.inventory import DataDiskRef, Inventory
    from models.pace import ACTIVITY_BUDGET, budget_task_queue
    from models.prices import OfferingPrices, PricesInput
    from models.reserved_room import ReservedRoom, ReservedRoomInput
    from models.spec import MachineSpec

from workflows import policies
from workflows.traces import Operations


def error_type(err: BaseException) -> str:
    """The ApplicationError type behind an activity failure ("" when there is none, e.g. a timeout)."""
    cause = err.cause if isinstance(err, ActivityError) else err
    if isinstance(cause, ApplicationError):
        return cause.type or ""
    if isinstance(cause, TimeoutError):
        return "Timeout"
    return ""


# The error type a worker reports when it lacks the codec key an activity's input is sealed with (the SDK fails the
# attempt "Failed decoding arguments", caused by the codec's models.undecodable.MissingKeyError).
MISSING_KEY = "MissingKeyError"


def lacked_key(err: BaseException) -> bool:
    """Whether an activity failed only because the workers that took it lack the key of its input."""
    cause: BaseException | None = err
    while cause is not None:
        if isinstance(cause, ApplicationError) and cause.type == MISSING_KEY:
            return True
        cause = cause.cause if isinstance(cause, FailureError) else None
    return False


def suggested_delay(err: BaseException) -> timedelta | None:
    """Azure's own hint (NIC reservation left, Retry-After), carried as next_retry_delay."""
    cause = err.cause if isinstance(err, ActivityError) else err
    return cause.next_retry_delay if isinstance(cause, ApplicationError) else None


def error_text(err: BaseException) -> str:
    """"<type>: <message>" once (str() of an ApplicationError already starts with its type)."""
    cause = err.cause if isinstance(err, ActivityError) and err.cause is not None else err
    kind = error_type(err)
    message = cause.message if isinstance(cause, FailureError) else str(cause)
    return f"{kind}: {message}" if kind else message


def _as_activity_error(name: ActivityName, failure: FailureError) -> ActivityError:
    """What a failed activity raises (ActivityError, the failure as its cause), for a failed local activity."""
    error = ActivityError(f"local activity {name.value} failed", scheduled_event_id=0, started_event_id=0,
                          identity="", activity_type=name.value, activity_id="", retry_state=None)
    error.__cause__ = failure
    return error


def _discard(handle: "asyncio.Future[Any]") -> None:
    if not handle.cancelled():
        handle.exception()  # retrieved, so a detached call's failure is not reported as unhandled


class AzureCalls:
    """One machine's view of the driver."""

    def __init__(self, spec: MachineSpec, trace: Operations | None = None) -> None:
        self.spec = spec
        self.ref = MachineRef(resource_group=spec.resource_group, name=spec.name)
        self._detached: list[asyncio.Future[Any]] = []
        # The machine's operations: each call starts inside the open one, as a child span (workflows/traces.py).
        self.trace = trace or Operations("machine", {})

    async def _call(self, name: ActivityName, arg: Any, **options: Any) -> Any:
        """Run one activity. A `delete` or cancellation interrupting the flow detaches the call.

        Detached rather than cancelled, because both cancellation modes broke workflows here
        (temporalio 1.35, reproduced on the time-skipping server): with ABANDON the SDK core failed
        every later workflow task when the abandoned activity's failure arrived ("ActivityMachine
        in state Canceled says the transition is invalid"); with TRY_CANCEL a cancel racing the
        activity's completion was refused (ACTIVITY_UNKNOWN) and the workflow stalled. Detaching
        sends no command at all. Deletion first waits for detached calls to end (`settle`), so a
        VM PUT still in flight cannot land after deletion has verified that nothing is left.
        """
        budget = ACTIVITY_BUDGET.get(name)
        if budget is not None:  # on its budget's queue, handed out at Azure's pace across the fleet (models/pace.py)
            options["task_queue"] = budget_task_queue(workflow.info().task_queue, budget)
        attempt = 0
        while True:
            try:
                with self.trace.current():
                    handle = workflow.start_activity(name, arg, **options)
                return await self._detachable(handle)
            except ActivityError as err:
                if not lacked_key(err):
                    raise
                # Its attempts all met workers without the key this worker sealed the input with (a rotation rolled
                # out in the wrong order): Azure was not called. Another worker has the key: this one does.
                attempt += 1
                wait = policies.capped_backoff(attempt, policies.KEY_WAIT_START, policies.KEY_WAIT_CAP)
                workflow.logger.warning(f"[{workflow.info().workflow_id}] {name.value}: the workers that took it "
                                        f"lack the codec key of its input; scheduled again in {wait}")
                await workflow.sleep(wait)

    async def short_call(self, name: ActivityName, arg: Any, result_type: Any, summary: str) -> Any:
        """A short call: one read, or a question to the offerings memory, as a local activity (the worker running
        the workflow task runs it: a marker in that task, no activity task and no workflow task more). One that would
        wait for company (WouldWaitForCompany: its group's shared list, activities/reading/group_listing.py) is asked
        again as a regular activity. It fails as an ActivityError with the driver's ApplicationError as its cause."""
        with self.trace.current():
            handle = workflow.start_local_activity(name, arg, result_type=result_type, summary=summary,
                                                   start_to_close_timeout=policies.READ_TIMEOUT,
                                                   retry_policy=policies.READ_RETRY)
        try:
            try:
                return await self._detachable(handle)
            except FailureError as failure:  # a local activity's own failure arrives bare (its timeouts do not)
                if isinstance(failure, ActivityError):
                    raise
                raise _as_activity_error(name, failure) from failure
        except ActivityError as err:
            if error_type(err) != ErrorType.WOULD_WAIT_FOR_COMPANY:
                raise
        # The read waits for its group's shared list: as a regular activity, holding no workflow task meanwhile.
        return await self._call(name, arg, result_type=result_type, summary=f"{summary} (with its group's machines)",
                                start_to_close_timeout=policies.READ_TIMEOUT, retry_policy=policies.READ_RETRY)

    async def _detachable(self, handle: "asyncio.Future[Any]") -> Any:
        try:
            return await asyncio.shield(handle)
        except asyncio.CancelledError:
            handle.add_done_callback(_discard)
            self._detached.append(handle)
            raise

    @property
    def in_flight(self) -> int:
        return sum(1 for handle in self._detached if not handle.done())

    async def settle(self) -> None:
        """Wait until every detached call has ended (each is bounded by its own timeouts)."""
        await workflow.wait_condition(lambda: self.in_flight == 0)
        self._detached.clear()

    async def read_inventory(self) -> Inventory:
        """Everything of the machine that exists; the empty inventory when Azure has nothing of it."""
        try:
            return await self.short_call(ActivityName.READ_INVENTORY, self.spec, Inventory,
                                    f"Read VM, NIC and disks of {self.spec.name}")
        except ActivityError as err:
            if error_type(err) == ErrorType.NOT_FOUND:  # how workers before the empty answer said "nothing"
                return Inventory()
            raise

    async def find_vm(self) -> Inventory:
        """The VM alone (one GET): creation and health checks decide on the VM, never on a NIC or disk."""
        return await self.short_call(ActivityName.FIND_VM, self.spec, Inventory, f"Read VM {self.spec.name}")

    async def ensure_nic(self) -> str:
        return await self._call(
            ActivityName.ENSURE_NIC, self.spec, result_type=str,
            start_to_close_timeout=policies.NIC_TIMEOUT, heartbeat_timeout=policies.OPERATION_HEARTBEAT,
            retry_policy=policies.CREATE_RETRY,
            summary=f"Create NIC {self.spec.name}-nic in {self.spec.resource_group}",
        )

    async def ensure_vm(self, nic_id: str, attach: list[DataDiskRef] | None = None,
                        vm_absent: bool = False) -> Inventory:
        """Create (or adopt) the VM; `attach`: data disks that exist, attached instead of created empty;
        `vm_absent`: the attempt just read that there is no VM (the activity then creates without a GET)."""
        kept = f", attaching {', '.join(d.name for d in attach)}" if attach else ""
        if self.spec.plan is not None and self.spec.accept_terms:  # never without the spec's word
            await self.accept_marketplace_terms()
        return await self._call(
            ActivityName.ENSURE_VM,
            EnsureVmInput(spec=self.spec, nic_id=nic_id, attach=attach or [], vm_absent=vm_absent),
            result_type=Inventory,
            start_to_close_timeout=policies.VM_TIMEOUT, heartbeat_timeout=policies.VM_HEARTBEAT,
            retry_policy=policies.CREATE_RETRY,
            summary=f"Create VM {self.spec.name} ({self.spec.vm_size}, {len(self.spec.data_disks)} data disks"
                    f"{kept})",
        )

    async def accept_marketplace_terms(self) -> str:
        plan = self.spec.plan
        return await self._call(
            ActivityName.ACCEPT_MARKETPLACE_TERMS, self.spec, result_type=str,
            start_to_close_timeout=policies.NIC_TIMEOUT, retry_policy=policies.CREATE_RETRY,
            summary=f"Accept the marketplace terms of plan {plan.name if plan else ''} (accept_terms)",
        )

    async def update_vm_in_place(self) -> Inventory:
        return await self._call(
            ActivityName.UPDATE_VM_IN_PLACE, self.spec, result_type=Inventory,
            start_to_close_timeout=policies.VM_TIMEOUT, heartbeat_timeout=policies.VM_HEARTBEAT,
            retry_policy=policies.READ_RETRY,
            summary=f"Update VM {self.spec.name} in place (identity, boot diagnostics)",
        )

    async def start_vm(self, power_state: str) -> Inventory:
        return await self._vm_operation(ActivityName.START_VM,
                                        f"Start the {power_state or 'stopped'} VM {self.spec.name}")

    async def restart_vm(self) -> Inventory:
        return await self._vm_operation(ActivityName.RESTART_VM, f"Restart VM {self.spec.name} (repair)")

    async def redeploy_vm(self) -> Inventory:
        return await self._vm_operation(ActivityName.REDEPLOY_VM,
                                        f"Redeploy VM {self.spec.name} to a new host (repair: disks and NIC kept)")

    async def _vm_operation(self, name: ActivityName, summary: str) -> Inventory:
        """A power or repair operation on the VM (MachineRef -> Inventory): heartbeated while Azure runs it."""
        return await self._call(
            name, self.ref, result_type=Inventory,
            start_to_close_timeout=policies.VM_TIMEOUT, heartbeat_timeout=policies.VM_HEARTBEAT,
            retry_policy=policies.START_RETRY, summary=summary,
        )

    async def read_resource_health(self) -> ResourceHealthReading:
        return await self.short_call(ActivityName.READ_RESOURCE_HEALTH, self.ref, ResourceHealthReading,
                                     f"Read Resource Health of VM {self.spec.name}")

    async def read_prices(self, inp: PricesInput) -> OfferingPrices:
        read: OfferingPrices = await self.short_call(
            ActivityName.READ_PRICES, inp, OfferingPrices,
            f"Read the hourly prices of {', '.join(inp.vm_sizes)} in {inp.location}")
        return read

    async def read_reserved_room(self, inp: ReservedRoomInput) -> ReservedRoom:
        read: ReservedRoom = await self.short_call(
            ActivityName.READ_RESERVED_ROOM, inp, ReservedRoom,
            f"Read the reserved capacity left in {inp.group_id.rsplit('/', 1)[-1]}")
        return read

    async def guest_address(self) -> str:
        return await self.short_call(ActivityName.GUEST_ADDRESS, self.spec, str,
                                     f"Read the private IP of {self.spec.name}'s NIC (for probes)")

    async def probe_guest(self, inp: ProbeInput) -> ProbeResult:
        """No retry: a failed probe is an answer, counted against the failure threshold."""
        handle = workflow.start_local_activity(
            ActivityName.PROBE_GUEST, inp, result_type=ProbeResult,
            summary=f"Probe {inp.probe.target(inp.address)}",
            start_to_close_timeout=inp.probe.timeout + policies.PROBE_SLACK, retry_policy=policies.NO_RETRY)
        try:
            return await self._detachable(handle)
        except (ActivityError, FailureError) as err:
            return ProbeResult(ok=False, detail=f"probe could not run: {error_text(err)}")

    async def deallocate_vm(self) -> Inventory:
        return await self._vm_operation(ActivityName.DEALLOCATE_VM,
                                        f"Deallocate VM {self.spec.name} (preserved: disks and NIC kept)")

    async def set_data_disk_delete_option(self, option: str) -> Inventory:
        """Detach: deleting the VM keeps its data disks (a recovery). Delete: they go with it (`delete`)."""
        return await self._call(
            ActivityName.SET_DATA_DISK_DELETE_OPTION,
            DataDiskDeleteOptionInput(machine=self.ref, delete_option=option), result_type=Inventory,
            start_to_close_timeout=policies.VM_TIMEOUT, heartbeat_timeout=policies.VM_HEARTBEAT,
            retry_policy=policies.CREATE_RETRY,
            summary=f"Set deleteOption {option} on the data disks of VM {self.spec.name}",
        )

    async def delete_vm(self, force: bool) -> None:
        await self._call(
            ActivityName.DELETE_VM, DeleteVmInput(machine=self.ref, force=force),
            start_to_close_timeout=policies.VM_TIMEOUT, heartbeat_timeout=policies.VM_HEARTBEAT,
            retry_policy=policies.DELETE_RETRY,
            summary=f"Delete VM {self.spec.name}" + (" (forced)" if force else ""),
        )

    async def delete_nic(self, name: str) -> None:
        await self._delete_resource(ActivityName.DELETE_NIC, "NIC", name, policies.NIC_TIMEOUT)

    async def delete_public_ip(self, name: str) -> None:
        await self._delete_resource(ActivityName.DELETE_PUBLIC_IP, "public IP", name, policies.NIC_TIMEOUT)

    async def delete_disk(self, name: str) -> None:
        await self._delete_resource(ActivityName.DELETE_DISK, "disk", name, policies.DISK_TIMEOUT)

    async def _delete_resource(self, activity: ActivityName, kind: str, name: str, limit: timedelta) -> None:
        await self._call(
            activity, DeleteResourceInput(machine=self.ref, name=name),
            start_to_close_timeout=limit, heartbeat_timeout=policies.OPERATION_HEARTBEAT,
            retry_policy=policies.DELETE_RETRY,
            summary=f"Delete {kind} {name}",
        )

    async def power_off(self, drain_timeout: timedelta) -> None:
        # schedule_to_close bounds the whole drain, retries included, by the machine's drain timeout.
        await self._call(
            ActivityName.POWER_OFF, self.ref,
            schedule_to_close_timeout=drain_timeout,
            start_to_close_timeout=min(drain_timeout, policies.VM_TIMEOUT),
            heartbeat_timeout=policies.VM_HEARTBEAT, retry_policy=policies.DRAIN_RETRY,
            summary=f"Power off VM {self.spec.name} (drain, at most {drain_timeout})",
        )
