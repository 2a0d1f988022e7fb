"""MachinePool: N identical machines from one template, each a child MachineLifecycle workflow.

Reads as a story: decode the spec, then keep the pool as specified - a template change its machines take in place
first (in_place.py), plan (plan.py, pure), act (children.py: start children, signal delete/preserve), show
(view.py), wait for a change -
until `delete`, then delete every machine (preserved ones last), read Azure by the pool's tag for anything
left (leftovers.py) and complete once all is gone. Machines tell the pool their phases (machine/pool_notice.py),
so the pool never polls; it believes a notice once the machine's own workflow confirms it (news.py).
Handlers only record intent and wake the loop; the loop continues as new before the history grows large.
"""

import asyncio
from typing import Any

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.pool import PoolStatus
    from models.pool_in_place import in_place_changes
    from models.requests import DeleteRequest
    from models.spec import MachineSpec
    from models.status import Phase, RefusedMessage
    from models.temporal_api import (
        DELETE_SIGNAL,
        MACHINE_PHASE_SIGNAL,
        PAUSE_UPDATE,
        POOL_WORKFLOW_TYPE,
        PREEMPT_ANNOUNCED_SIGNAL,
        REPAIR_WANTED_SIGNAL,
        RESUME_REPAIRS_UPDATE,
        RESUME_UPDATE,
        SCALE_UPDATE,
        SET_SETTINGS_UPDATE,
        SET_TEMPLATE_UPDATE,
        STATUS_QUERY,
        UPGRADE_SIGNAL,
    )

from workflows.continuation import bounded_history_limit, history_is_long, history_limit_from_memo
from workflows.pool import preemption, repairs
from workflows.pool.adoption import adopt
from workflows.pool.book import PoolBook, names_of
from workflows.pool.children import allow_repairs, delete_machines, preserve_machines, start_machine
from workflows.pool.clock import PoolClock
from workflows.pool.deletion import PoolDeletion
from workflows.pool.in_place import apply_in_place
from workflows.pool.inputs import (
    check_open,
    decode_pool_input,
    delete_request,
    scale_request,
    settings_spec,
    template_spec,
)
from workflows.pool.news import PoolNews
from workflows.pool.plan import Plan, plan, steady
from workflows.pool.state import InPlace, PoolState
from workflows.pool.view import PoolView, build_status
from workflows.pool.zones import machine_spec
from workflows.refusals import Refusals, accepted
from workflows.traces import Operations
from workflows.versioning import continue_as_new, upgrade_due


@workflow.defn(name=POOL_WORKFLOW_TYPE)
class MachinePool:
    @workflow.init
    def __init__(self, *args: Any) -> None:
        # Decoded here, so updates and signals that come with the first task already see the pool.
        self._state: PoolState | None = None
        self._input_error: ApplicationError | None = None
        try:
            self._state = decode_pool_input(args)
        except ApplicationError as err:
            self._input_error = err
        self._book = PoolBook(self._state) if self._state else None
        self._news = PoolNews(self._state, self._book) if self._state and self._book else None
        self._view = PoolView()
        self._wake = False
        self._held = ""
        self._repairs_held = ""
        self._clock = PoolClock()
        self._trace = Operations("pool", {})  # named once the input is read (_started)
        # Machines this run started wait here for their workflow's end (a terminated one tells nothing).
        self._watchers: dict[str, asyncio.Future[None]] = {}
        # Messages whose payload did not decode (workflows/refusals.py): a pool operation each.
        self._refusals = Refusals(self._refused)

    # ---- public surface ---------------------------------------------------------------------

    @workflow.run
    async def run(self, *args: Any) -> PoolStatus:
        state, book = self._started()
        try:
            await self._keep(state, book)
        except asyncio.CancelledError:  # cancelling the pool means: delete it, properly (as for a machine)
            state.delete_request = state.delete_request or DeleteRequest(reason="workflow cancelled")
        return await self._delete_all(state, book)

    @workflow.query(name=STATUS_QUERY)
    def status(self) -> PoolStatus:
        if self._state is None:
            return PoolStatus(name="", resource_group="", rollout_message=str(self._input_error or ""))
        return build_status(self._state, workflow.now(), self._held, self._repairs_held)

    @workflow.signal(name=REPAIR_WANTED_SIGNAL)
    def repair_wanted(self, *args: Any) -> None:
        """An Unhealthy machine of this pool asks to take a repair step: `{"name", "action"}`."""
        if self._refusals.signal(REPAIR_WANTED_SIGNAL, args) or self._state is None:
            return
        self._wake = repairs.asked(self._state, args) or self._wake

    @workflow.signal(name=PREEMPT_ANNOUNCED_SIGNAL)
    def preempt_announced(self, *args: Any) -> None:
        """A Spot machine of this pool says Azure announced its eviction: its replacement starts now (preemption.py)."""
        if self._refusals.signal(PREEMPT_ANNOUNCED_SIGNAL, args) or self._state is None or self._book is None:
            return
        self._wake = preemption.announced(self._state, self._book, args) or self._wake

    @workflow.update(name=RESUME_REPAIRS_UPDATE)
    def resume_repairs(self, *args: Any) -> PoolStatus:
        accepted(RESUME_REPAIRS_UPDATE, args)
        repairs.resume(*self._open())
        return self._changed()

    @resume_repairs.validator
    def _validate_resume_repairs(self, *args: Any) -> None:
        self._refusals.validate(RESUME_REPAIRS_UPDATE, args)
        check_open(self._state, self._deleting(), "resume_repairs")

    @workflow.signal(name=DELETE_SIGNAL)
    def delete(self, *args: Any) -> None:
        """`{"reason": ...}`, `{}` or nothing: delete every machine, then complete."""
        if self._refusals.signal(DELETE_SIGNAL, args):
            return
        if self._state is not None and self._state.delete_request is None:
            self._state.delete_request = delete_request(args)
            self._wake = True

    @workflow.signal(name=UPGRADE_SIGNAL)
    def upgrade(self, *args: Any) -> None:
        """A wake only: the pool continues as new between steps when a newer version is current."""

    @workflow.signal(name=MACHINE_PHASE_SIGNAL)
    def machine_phase(self, *args: Any) -> None:
        """A machine tells its phase (sent by its own workflow, machine/pool_notice.py): a notice to confirm."""
        if self._refusals.signal(MACHINE_PHASE_SIGNAL, args):
            return
        notice = args[0] if len(args) == 1 else None
        if self._news is not None and self._news.heard(notice):
            self._wake = True

    @workflow.update(name=SCALE_UPDATE)
    def scale(self, *args: Any) -> PoolStatus:
        accepted(SCALE_UPDATE, args)
        state, book = self._open()
        replicas = scale_request(args).replicas
        book.operation("scale", f"replicas {state.spec.replicas} -> {replicas}")
        state.spec = state.spec.with_changes(None, replicas=replicas)  # the validator checked the replicas
        return self._changed()

    @scale.validator
    def _validate_scale(self, *args: Any) -> None:
        self._refusals.validate(SCALE_UPDATE, args)
        check_open(self._state, self._deleting(), "scale")
        scale_request(args)

    @workflow.update(name=SET_TEMPLATE_UPDATE)
    def set_template(self, *args: Any) -> PoolStatus:
        accepted(SET_TEMPLATE_UPDATE, args)
        state, book = self._open()
        new, revision = template_spec(state, args)
        old, fields = state.revision, in_place_changes(state.spec.template, new.template, state.spec.name)
        state.spec, state.revision = new, revision
        if revision != old:
            back = " (back to the last completed revision: rolling back)" if revision == state.current_revision else ""
            how = f": {', '.join(fields)} change in place on its machines" if fields else ""
            book.operation("template", f"rev {old} -> {revision}{back}{how}")
            state.progress_at, state.stuck = workflow.now(), False
            state.in_place = InPlace(from_revision=old, to_revision=revision, fields=fields) if fields else None
        return self._changed()

    @set_template.validator
    def _validate_set_template(self, *args: Any) -> None:
        self._refusals.validate(SET_TEMPLATE_UPDATE, args)
        template_spec(check_open(self._state, self._deleting(), "set_template"), args)

    @workflow.update(name=SET_SETTINGS_UPDATE)
    def set_settings(self, *args: Any) -> PoolStatus:
        accepted(SET_SETTINGS_UPDATE, args)
        state, book = self._open()
        state.spec, changes = settings_spec(state, args)
        if changes:
            book.operation("settings", ", ".join(changes))
        return self._changed()

    @set_settings.validator
    def _validate_set_settings(self, *args: Any) -> None:
        self._refusals.validate(SET_SETTINGS_UPDATE, args)
        settings_spec(check_open(self._state, self._deleting(), "set_settings"), args)

    @workflow.update(name=PAUSE_UPDATE)
    def pause(self, *args: Any) -> PoolStatus:
        accepted(PAUSE_UPDATE, args)
        state, book = self._open()
        if not state.paused:
            state.paused = True
            book.operation("pause", "rollout paused (healing goes on)")
        return self._changed()

    @pause.validator
    def _validate_pause(self, *args: Any) -> None:
        self._refusals.validate(PAUSE_UPDATE, args)
        check_open(self._state, self._deleting(), "pause")

    @workflow.update(name=RESUME_UPDATE)
    def resume(self, *args: Any) -> PoolStatus:
        accepted(RESUME_UPDATE, args)
        state, book = self._open()
        if state.paused or state.stuck:
            book.operation("resume", "rollout resumed" + (" after it was stuck" if state.stuck else ""))
        state.paused, state.stuck, state.progress_at = False, False, workflow.now()
        return self._changed()

    @resume.validator
    def _validate_resume(self, *args: Any) -> None:
        self._refusals.validate(RESUME_UPDATE, args)
        check_open(self._state, self._deleting(), "resume")

    # ---- the story --------------------------------------------------------------------------

    def _started(self) -> tuple[PoolState, PoolBook]:
        if self._input_error is not None or self._state is None or self._book is None:
            workflow.logger.warning(f"[pool {workflow.info().workflow_id}] rejected input: {self._input_error}")
            raise self._input_error or ApplicationError("no input")
        state, book = self._state, self._book
        if state.runs == 1 and not state.operations:
            state.history_limit, note = history_limit_from_memo()
            state.progress_at = workflow.now()
            book.operation("create", f"pool of {state.spec.replicas} at rev {state.revision}"
                           + (f" ({note})" if note else ""))
        state.history_limit, _ = bounded_history_limit(state.history_limit)
        book.log(f"run {state.runs} started with {len(state.machines)} machines")
        # Its scales and rolls as traces (workflows/traces.py): from the first step until every machine is available.
        self._trace = Operations("pool", {"azmc.pool": f"{state.spec.resource_group}/{state.spec.name}"})
        return state, book

    async def _keep(self, state: PoolState, book: PoolBook) -> None:
        """Until deletion is requested: plan, act, show, wait for a change or the next moment time matters."""
        if state.runs > 1 and state.delete_request is None:
            await self._clock.overdue_fired(state)
        while state.delete_request is None:
            if history_is_long(state.history_limit) or upgrade_due():  # between steps: the safe point
                await self._continue_as_new(state, book)
            if state.adoption_due or state.strangers:  # before any decision: they count against replicas
                await adopt(state, book)
                continue
            if self._news is not None and self._news.waiting:
                await self._news.confirm()
                continue  # more may have come meanwhile, or `delete`
            # Before any decision, so no machine is replaced for a change it can take; held by `pause` as a rollout is.
            if state.in_place is not None and not state.paused:
                await apply_in_place(state, book)
                continue
            self._wake = False
            decided = self._decide(state, book)
            await self._allow_repairs(state, book)
            if decided.create or decided.delete or decided.preserve:
                await self._act(state, book, decided)
                continue  # the new machines and deletions change the next decision
            self._show()
            if self._trace.kind and not decided.rolling and steady(state.spec, state.machines):
                self._trace.end("every machine available")
            # A timer of the clock fires when time alone changes a decision: a machine available, a preservation
            # over, a rollout stalled.
            await workflow.wait_condition(
                lambda: self._wake or history_is_long(state.history_limit) or upgrade_due() or self._clock.fired())

    def _decide(self, state: PoolState, book: PoolBook) -> Plan:
        expired, stalled, backing_off = self._clock.read(state)
        preemption.forget_gone(state)
        decided = plan(state.spec, state.machines, revision=state.revision, paused=state.paused, stuck=state.stuck,
                       stalled=stalled, expired=expired, backing_off=backing_off, preempted=frozenset(state.preempted),
                       surged=frozenset(state.surged_ahead))
        if decided.stuck and not state.stuck:
            waited = humanize(state.spec.template.timeouts.creation)
            book.operation("stuck", f"no machine of rev {state.revision} became Running within {waited}: "
                           "rollout stopped, old machines keep serving")
        state.stuck = decided.stuck
        target = state.revision
        if not decided.rolling and state.current_revision != target and steady(state.spec, state.machines):
            state.current_revision, state.current_template = target, state.spec.template
            book.operation("roll", f"rev {target} rolled out")
        self._held = decided.held
        return decided

    async def _act(self, state: PoolState, book: PoolBook, decided: Plan) -> None:
        now, spec = workflow.now(), state.spec
        for name in decided.preserve:
            machine = state.machine(name)
            if machine is not None:
                machine.preserved, machine.since = True, now
        for name, _ in decided.delete:
            machine = state.machine(name)
            if machine is not None:
                machine.deleting = True
        for name in [n for n, _ in decided.delete] + decided.preserve:
            machine = state.machine(name)
            if machine is not None and machine.phase == Phase.FAILED and not machine.ran:  # replaced, never ran
                state.unran_failures, state.unran_failed_at = state.unran_failures + 1, now
        new = [book.new_machine(now, replacement=i < decided.replacements) for i in range(decided.create)]
        if new:
            book.operation("replace" if decided.replacements else "scale",
                           f"creating {names_of([m.name for m in new])} at rev {state.revision}")
        for name, why in decided.delete:
            book.operation("delete", f"{name}: {why}")
        for name in decided.preserve:
            book.operation("preserve", f"{name}: Failed, kept powered off for {humanize(spec.preserve_timeout)}")
        self._show()
        if not self._trace.kind:
            self._trace.begin("roll" if decided.rolling else "scale", replicas=str(spec.replicas),
                              revision=str(state.revision))
        specs = [machine_spec(state, m) for m in new]
        with self._trace.current():  # a machine started here links its create to this operation
            _, deleted, preserved = await asyncio.gather(
                asyncio.gather(*(self._start_machine(s, book) for s in specs)),
                delete_machines(spec.resource_group, [(n, {"reason": f"pool {spec.name}: {why}"})
                                                     for n, why in decided.delete]),
                preserve_machines(spec.resource_group, decided.preserve, "pool: Failed machine kept for diagnosis"))
        for name, delivered in zip([n for n, _ in decided.delete] + decided.preserve, deleted + preserved,
                                   strict=True):
            if not delivered:
                book.ended(name, "was already gone")

    async def _allow_repairs(self, state: PoolState, book: PoolBook) -> None:
        leave = repairs.decide(state)
        self._repairs_held = repairs.show(book, leave, self._repairs_held)
        self._wake = self._wake or bool(leave.surged)  # the next plan starts their surge
        await allow_repairs(state.spec.resource_group, leave.allowed)

    async def _start_machine(self, spec: MachineSpec, book: PoolBook) -> None:
        handle = await start_machine(spec)
        if handle is None:
            book.forget(spec.name, "not started: a workflow of that name runs already")
            return

        async def watch() -> None:
            # The machine's workflow completes after telling Deleted; anything else ended it (terminated).
            try:
                await handle
            except Exception as err:
                book.log(f"machine {spec.name} ended: {err}")
                book.ended(spec.name, "workflow ended")  # what it made may be left: the pool's deletion looks
            else:  # its own word, whether or not its Deleted notice was confirmed first
                book.forget(spec.name, "deleted")
            self._watchers.pop(spec.name, None)
            self._wake = True

        self._watchers[spec.name] = asyncio.ensure_future(watch())

    async def _delete_all(self, state: PoolState, book: PoolBook) -> PoolStatus:
        def clear_wake() -> None:
            self._wake = False

        deletion = PoolDeletion(state, book, self._news, is_woken=lambda: self._wake, clear_wake=clear_wake,
                                show=self._show, continue_as_new=lambda: self._continue_as_new(state, book))
        return await deletion.run()

    # ---- helpers ----------------------------------------------------------------------------

    def _refused(self, message: RefusedMessage) -> None:
        if self._book is not None:  # without a valid input the pool fails: its log line says enough
            self._book.operation("refused", f"{message.kind} {message.name!r}: {message.reason}")

    def _open(self) -> tuple[PoolState, PoolBook]:
        assert self._state is not None and self._book is not None  # the validators refused otherwise
        return self._state, self._book

    def _deleting(self) -> bool:
        return self._state is not None and self._state.delete_request is not None

    def _changed(self) -> PoolStatus:
        self._wake = True
        return self.status()

    def _show(self) -> None:
        if self._state is not None:
            self._view.show(self._state, build_status(self._state, workflow.now(), self._held))

    async def _continue_as_new(self, state: PoolState, book: PoolBook) -> None:
        await workflow.wait_condition(workflow.all_handlers_finished)
        state.runs += 1
        book.log(f"continuing as new (history length {workflow.info().get_current_history_length()})")
        continue_as_new(state)

