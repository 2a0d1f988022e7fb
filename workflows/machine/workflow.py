"""MachineLifecycle: one durable workflow per Azure machine - create, watch, delete.

Reads as a story: decode the input, then keep the machine as specified (creating, watching,
waiting after a failure) until `delete` or cancellation, then remove everything and complete.
Entity-workflow shape: one LifecycleState carried through continue-as-new; signal handlers only
record intent (they are sync, so they never interleave with the flows); the run loop waits on
`wait_condition(..., timeout=...)`; handlers are drained before continue-as-new and completion.
"""

import asyncio
from collections.abc import Sequence
from typing import Any

from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.foresight import Notice
    from models.requests import DeleteRequest, PreserveRequest
    from models.spec_changes import SpecUpdate
    from models.status import MachineStatus, OperationState, Phase, RefusedMessage, Stage
    from models.temporal_api import (
        DELETE_SIGNAL,
        FORESIGHT_SIGNAL,
        PRESERVE_SIGNAL,
        RECONCILE_SIGNAL,
        REPAIR_ALLOWED_SIGNAL,
        STATUS_QUERY,
        UPDATE_SPEC,
        UPGRADE_SIGNAL,
    )

from workflows.azure_calls import AzureCalls
from workflows.continuation import (
    ContinueAsNewNeeded,
    bounded_history_limit,
    history_is_long,
    history_limit_from_memo,
)
from workflows.deadlines import Deadline, timeout_clear_of
from workflows.errors import invalid_input
from workflows.machine import fallback, foresight, maintenance
from workflows.machine.bookkeeping import Machine
from workflows.machine.creation import Wake, create_machine
from workflows.machine.deletion import remove_everything
from workflows.machine.flows import Flows
from workflows.machine.health import check_health, next_check_in
from workflows.machine.inputs import (
    check_only,
    check_workflow_id,
    check_workflow_type,
    decode_input,
    delete_request,
    preserve_request,
)
from workflows.machine.preservation import preserve_machine, refuse_reconcile
from workflows.machine.signals import probe_only
from workflows.machine.spec_update import apply_pending_tags, apply_update, decode_update, validate
from workflows.machine.state import LifecycleState
from workflows.refusals import REFUSED_AT_START, Refusals, accepted, recent, refused_at_start
from workflows.versioning import continue_as_new, upgrade_due

__all__ = ["MachineLifecycle"]

WATCHED = (Phase.RUNNING, Phase.UNHEALTHY, Phase.UNKNOWN)  # a VM exists, or did: the health watch keeps it


# Dynamic: the SDK hands `run` every input as a RawValue whatever their number (and whatever the
# type name), so no input, two inputs or a mistyped workflow type fail the workflow at once instead
# of failing its task forever. `run` accepts only the type MachineLifecycle (WORKFLOW_TYPE, models/temporal_api.py).
@workflow.defn(dynamic=True)
class MachineLifecycle:
    def __init__(self) -> None:
        self._state: LifecycleState | None = None
        self._machine: Machine | None = None
        self._input_error = ""
        # Signals may arrive before `run` decoded the input, so they are held here, not in the state.
        self._delete_request: DeleteRequest | None = None
        self._reconcile_requested = False
        self._reconcile_skips_wait = False  # an operator's reconcile (not the sweep's check_only): repair now
        self._preserve_request: PreserveRequest | None = None  # acted on, then cleared once deallocated
        self._flows = Flows(deleting=lambda: self._delete_request is not None,
                            preserving=lambda: self._preserve_request is not None)
        self._azure: AzureCalls | None = None
        # Messages whose payload did not decode (workflows/refusals.py); held here until the state exists.
        self._refusals = Refusals(self._refused)
        self._refused_early: list[RefusedMessage] = []
        # The next full health check of a watched machine: a timer that outlives the probes' wakes between checks.
        self._next_check: Deadline | None = None
        # The latest notices of what Azure announced (the sweep's `foresight`), not yet looked at; None: none came.
        self._news: list[Notice] | None = None
        self._asks = maintenance.Asks(news=lambda: self._news, take_news=self._take_news,
                                      take_reconcile=self._take_operator_reconcile,
                                      requested=lambda: self._requested() or self._should_continue_as_new(),
                                      until_deleted=self._flows.until_deleted)

    # ---- public surface ---------------------------------------------------------------------

    @workflow.run
    async def run(self, args: Sequence[RawValue]) -> MachineStatus:
        machine = self._start(args)
        try:
            await self._keep_machine(machine)
        except asyncio.CancelledError:
            # Cancelling the workflow means: delete the machine, properly.
            if self._delete_request is None:
                self._delete_request = DeleteRequest(reason="workflow cancelled")
        return await self._delete_machine(machine)

    @workflow.signal(name=DELETE_SIGNAL)
    def delete(self, *args: Any) -> None:
        """`{"reason": ..., "force": ...}`, `{}` or no payload.

        Untyped on purpose: with a DeleteRequest parameter the SDK would drop a signal whose payload
        does not validate; here an unusable payload still deletes (without force).
        """
        if self._refusals.signal(DELETE_SIGNAL, args) or self._delete_request is not None:
            return
        self._delete_request = delete_request(args)

    @workflow.signal(name=RECONCILE_SIGNAL)
    def reconcile(self, *args: Any) -> None:
        """Re-check Azure now (Running/Unhealthy/Unknown), or start a fresh creation (Failed). A payload that does
        not validate is a plain reconcile."""
        if self._refusals.signal(RECONCILE_SIGNAL, args):
            return
        self._reconcile_requested = True
        self._reconcile_skips_wait = self._reconcile_skips_wait or not check_only(args)

    @workflow.signal(name=REPAIR_ALLOWED_SIGNAL)
    def repair_allowed(self, *args: Any) -> None:
        """`{"action": "restart"}` from this machine's pool: take that repair step at the next health check (a minute
        at most while Unhealthy), if still unhealthy. No wake: a check started by the signal would cancel the check
        timer the signal may have raced, which the time-skipping test server refuses."""
        if self._refusals.signal(REPAIR_ALLOWED_SIGNAL, args) or self._machine is None:
            return
        payload = args[0] if len(args) == 1 and isinstance(args[0], dict) else {}
        action = str(payload.get("action", ""))
        if not self._machine.healing.allow(action):
            foresight.allow(self._machine, action)

    @workflow.signal(name=FORESIGHT_SIGNAL)
    def foresight(self, *args: Any) -> None:
        """`{"notices": [...]}` from the fleet sweep: what Azure announced of the VM (models/foresight.py). Ignored
        unless the spec asks for foresight, or when the payload does not validate (the next sweep sends it again)."""
        if self._refusals.signal(FORESIGHT_SIGNAL, args) or self._state is None or not self._state.spec.foresight:
            return
        news = foresight.notices_in(args)
        self._news = self._news if news is None else news

    @workflow.signal(name=UPGRADE_SIGNAL)
    def upgrade(self, *args: Any) -> None:
        """A wake only: its task tells the run whether a newer version is current (_should_continue_as_new)."""

    @workflow.signal(name=PRESERVE_SIGNAL)
    def preserve(self, *args: Any) -> None:
        """`{"reason": ...}`, `{}` or nothing: deallocate the VM, keep all, no healing until `delete`."""
        if self._refusals.signal(PRESERVE_SIGNAL, args):
            return
        preserved = self._state is not None and self._state.status.preserved
        if self._preserve_request is not None or preserved or self._delete_request is not None:
            return
        self._preserve_request = preserve_request(args)

    @workflow.update(name=UPDATE_SPEC)
    async def update_spec(self, *args: Any) -> SpecUpdate:
        """A new spec for this machine: what models/spec_changes.py IN_PLACE lists changes in place; anything else
        is refused."""
        accepted(UPDATE_SPEC, args)
        new = decode_update(args)
        assert self._machine is not None  # the validator refused the update before the input was decoded
        return await apply_update(self._machine, self._azure_calls(self._machine), self._flows.busy,
                                  lambda: self._delete_request is not None, new)

    @update_spec.validator
    def _validate_update_spec(self, *args: Any) -> None:
        self._refusals.validate(UPDATE_SPEC, args)
        validate(self._state, self._delete_request is not None, args)

    @workflow.query(name=STATUS_QUERY)
    def status(self) -> MachineStatus:
        if self._state is None:
            return MachineStatus(name="", resource_group="", phase=Phase.FAILED, last_error=self._input_error)
        return self._state.status

    # ---- the story --------------------------------------------------------------------------

    def _start(self, args: Sequence[RawValue]) -> Machine:
        notes: list[str] = []
        try:
            if refused_at_start():
                raise invalid_input(REFUSED_AT_START)
            check_workflow_type()
            decoded = decode_input(args)
            check_workflow_id(decoded.spec if isinstance(decoded, LifecycleState) else decoded)
            limit, note = (0, "") if isinstance(decoded, LifecycleState) else history_limit_from_memo()
        except ApplicationError as err:
            self._input_error = str(err)
            workflow.logger.warning(f"[machine {workflow.info().workflow_id}] rejected input: {err}")
            raise
        if isinstance(decoded, LifecycleState):
            state = decoded
            self._delete_request = self._delete_request or state.delete_request
            self._reconcile_requested = self._reconcile_requested or state.reconcile_requested
            self._preserve_request = state.preserve_request or self._preserve_request
        else:
            notes.append(note)
            state = LifecycleState.fresh(decoded, limit)
        state.history_limit, note = bounded_history_limit(state.history_limit)
        notes.append(note)
        for message in self._refused_early:
            state.status.refused = recent(state.status.refused, message)
        self._state = state
        self._machine = Machine(state)
        self._machine.announce()
        self._machine.log.info(f"run {state.runs} started in phase {state.status.phase}")
        for note in filter(None, notes):
            # Not silent: the starter's setting was not used as given, and the status says so.
            self._machine.log.warning(note)
            self._machine.operation(Stage.VALIDATE, OperationState.SUCCESSFUL, note)
        return self._machine

    async def _keep_machine(self, machine: Machine) -> None:
        """Until deletion is requested: create, watch, or wait after a failure."""
        azure = self._azure_calls(machine)
        while self._delete_request is None:
            if self._should_continue_as_new():
                await self._continue_as_new(machine)
            if self._preserve_request is not None or machine.state.status.preserved:
                await self._keep_preserved(machine, azure)
                continue
            phase = machine.phase
            if phase in (Phase.PENDING, Phase.CREATING, Phase.CRASH_LOOP_BACK_OFF):
                try:
                    wake = Wake(requested=lambda: self._reconcile_requested, clear_request=self._take_reconcile)
                    creation = create_machine(machine, azure, machine.state.spec.timeouts.drain, wake)
                    await self._flows.until_deleted(creation)
                    await self._tag_if_pending(machine, azure)
                except ContinueAsNewNeeded as reason:
                    machine.log.info(f"continuing as new mid-creation: {reason}")
                    await self._continue_as_new(machine)
            elif phase in WATCHED:
                await self._watch(machine, azure)
            elif phase == Phase.MAINTENANCE:
                await maintenance.maintain(machine, azure, self._asks)
            else:  # Failed: everything is cleaned up; wait for an operator.
                await workflow.wait_condition(
                    lambda: self._requested() or self._should_continue_as_new())
                if self._reconcile_requested and self._delete_request is None and self._preserve_request is None:
                    self._reconcile_requested = False
                    machine.log.info("reconcile in Failed: starting a fresh creation")
                    machine.state.ignore_refusals_once = True
                    machine.set_phase(Phase.PENDING)

    async def _watch(self, machine: Machine, azure: AzureCalls) -> None:
        """Wait for the next check (its timer), a timeout of the health or repair waits, or an operator; with a
        probe, probe the guest every period in between (while Running or Unhealthy) and check at once when its
        verdict changes."""
        if self._next_check is None:
            self._next_check = Deadline(workflow.now() + next_check_in(machine), "health check")
        check = self._next_check
        healing = machine.healing
        deadlines = [d for d in (check, healing.health_timeout(), healing.repair_deadline()) if d is not None]
        probe = machine.state.spec.health.probe
        probing = probe is not None and machine.phase in (Phase.RUNNING, Phase.UNHEALTHY)
        every = timeout_clear_of(probe.period, deadlines) if probing and probe is not None else None
        timed_out = False
        try:
            await workflow.wait_condition(
                lambda: self._requested() or self._should_continue_as_new() or any(d.passed for d in deadlines)
                or self._news is not None, timeout=every)
        except TimeoutError:
            timed_out = True  # time to probe
        if self._delete_request is not None or self._preserve_request is not None or (
                self._should_continue_as_new() and not self._reconcile_requested):
            return
        if self._news is not None and (await maintenance.foresee(machine, azure, self._take_news() or []) or not (
                timed_out or self._reconcile_requested or any(d.passed for d in deadlines))):
            return  # in Maintenance now, or the news was all that woke the watch
        asked, self._reconcile_requested = self._reconcile_requested, False
        skip_wait, self._reconcile_skips_wait = self._reconcile_skips_wait and asked, False
        if probing and not asked and not any(d.passed for d in deadlines):
            if await self._flows.until_deleted(probe_only(machine, azure)) or self._delete_request is not None:
                return  # nothing new: the full check waits for its timer
        check.cancel()
        self._next_check = None
        recreate = await self._flows.until_deleted(check_health(machine, azure, asked=asked, skip_wait=skip_wait))
        if recreate:
            machine.healing.healthy_again()
            machine.state.creation_started_at = None
            machine.set_phase(Phase.PENDING)
        else:
            await self._tag_if_pending(machine, azure)

    async def _keep_preserved(self, machine: Machine, azure: AzureCalls) -> None:
        """Deallocate once (resumed after a continue-as-new), then only wait: for `delete`, or to continue as new."""
        if self._preserve_request is not None:
            try:
                preservation = preserve_machine(machine, azure, self._preserve_request)
                await self._flows.until_deleted(preservation, preserving=True)
            except ContinueAsNewNeeded as reason:  # the carried request resumes the deallocation
                machine.log.info(f"continuing as new mid-preservation: {reason}")
                await self._continue_as_new(machine)
            if self._delete_request is None:
                self._preserve_request = None
            return
        await workflow.wait_condition(lambda: self._requested() or self._should_continue_as_new())
        if self._reconcile_requested and self._delete_request is None:
            self._reconcile_requested = False
            refuse_reconcile(machine)

    async def _delete_machine(self, machine: Machine) -> MachineStatus:
        request = self._delete_request or DeleteRequest()
        machine.state.delete_request = request
        machine.log.info(f"deleting: {request.reason or 'no reason given'}" + (" (force)" if request.force else ""))
        machine.set_phase(Phase.TERMINATING)
        azure = self._azure_calls(machine)
        while True:
            try:
                async with self._flows.busy:
                    # First: machines waiting for the outcome of this one's attempt must not wait for it.
                    await fallback.release_probes(machine, azure, f"deleted: {request.reason or 'no reason given'}")
                    await remove_everything(machine, azure, drain=True, force=request.force,
                                            drain_timeout=machine.state.spec.timeouts.drain)
                break
            except ContinueAsNewNeeded as reason:
                # The next run sees the carried delete request and resumes deletion from a fresh read.
                machine.log.info(f"continuing as new mid-deletion: {reason}")
                await self._continue_as_new(machine)
            except asyncio.CancelledError:
                # A cancellation while already deleting changes nothing: deletion must finish.
                machine.log.info("cancellation received during deletion; continuing deletion")
        machine.set_phase(Phase.DELETED)
        await machine.pool_notices.sent()
        await workflow.wait_condition(workflow.all_handlers_finished)
        return machine.state.status

    # ---- helpers ----------------------------------------------------------------------------

    def _refused(self, message: RefusedMessage) -> None:
        if self._state is None:
            self._refused_early = recent(self._refused_early, message)
            return
        self._state.status.refused = recent(self._state.status.refused, message)
        if self._machine is not None and not workflow.unsafe.is_read_only():  # a validator shows it at the next task
            self._machine.refresh()

    def _azure_calls(self, machine: Machine) -> AzureCalls:
        # One per run, so deletion knows about calls an interrupted flow left in flight.
        if self._azure is None:
            self._azure = AzureCalls(machine.state.spec, machine.trace)
        return self._azure

    async def _tag_if_pending(self, machine: Machine, azure: AzureCalls) -> None:
        """Tags an update_spec could not apply at once (creating, or tagging failed): now that it runs."""
        runs = machine.phase in WATCHED
        pending = machine.state.tags_pending or machine.state.nic_pending
        if pending and runs and self._delete_request is None:
            await self._flows.until_deleted(apply_pending_tags(machine, azure))

    def _take_reconcile(self) -> None:
        self._reconcile_requested = False

    def _take_operator_reconcile(self) -> bool:
        if not self._reconcile_requested:
            return False
        self._reconcile_requested = self._reconcile_skips_wait = False
        return True

    def _take_news(self) -> list[Notice] | None:
        news, self._news = self._news, None
        return news

    def _requested(self) -> bool:
        return self._delete_request is not None or self._reconcile_requested or self._preserve_request is not None

    def _should_continue_as_new(self) -> bool:
        """Asked only where the machine is idle or between flows: a run creating or deleting finishes on its code."""
        return history_is_long(self._state.history_limit if self._state else 0) or upgrade_due()

    async def _continue_as_new(self, machine: Machine) -> None:
        await machine.pool_notices.sent()
        await fallback.release_probes(machine, self._azure_calls(machine), "continued as new")
        await workflow.wait_condition(workflow.all_handlers_finished)
        state = machine.state
        state.delete_request = self._delete_request
        state.reconcile_requested = self._reconcile_requested
        state.preserve_request = self._preserve_request
        state.runs += 1
        machine.log.info(f"continuing as new (history length {workflow.info().get_current_history_length()})")
        with machine.trace.carried():  # the next run's first operation links to this run's last
            continue_as_new(state)
