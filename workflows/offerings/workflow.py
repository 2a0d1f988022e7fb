"""Offerings: the installation's shared, durable memory of the offerings Azure refused, one per subscription+location.

Machines claim the offering to try through the `claim` update and tell how it went through `refused`
(update-with-start: the first machine starts it, and many racing to start it all land in the one workflow,
USE_EXISTING); the `available` query reads without claiming and writes nothing to its history. Entries
expire (models/refusals.py says when): a question is answered at the asker's time, and expired entries are
dropped at the next report and when the run continues as new. No timer waits for an expiry: that would write
history for nothing. Its current details list the entries with their end times,
and the probes in flight with who holds them, so the UI shows what is skipped, why and until when.
"""

from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.offering_claims import Claim, ClaimRequest, Probe, claim_offering, outcome, released
    from models.offerings import Availability, Refusal, availability
    from models.offerings_memory import (
        Forgotten,
        OfferingsMemory,
        OfferingsQuestion,
        ProbeRelease,
        RefusalReport,
        offerings_task_queue,
    )
    from models.quota import uncounted
    from models.refusals import refusal_of
    from models.status import RefusedMessage
    from models.temporal_api import (
        OFFERINGS_AVAILABLE_QUERY,
        OFFERINGS_CLAIM_UPDATE,
        OFFERINGS_ENTRIES_QUERY,
        OFFERINGS_FORGET_UPDATE,
        OFFERINGS_PROBES_QUERY,
        OFFERINGS_REFUSED_UPDATE,
        OFFERINGS_RELEASE_UPDATE,
        OFFERINGS_WORKFLOW_TYPE,
        UPGRADE_SIGNAL,
    )
    from models.undecodable import Undecodable
    from models.validation import describe_validation_error

from workflows.carried import CarriedShape
from workflows.continuation import history_is_long
from workflows.errors import invalid_input
from workflows.offerings import quota, skus
from workflows.refusals import REFUSED_AT_START, Refusals, accepted, recent, refuse_input, refused_at_start
from workflows.versioning import continue_as_new, upgrade_due

Model = TypeVar("Model", bound=BaseModel)


def _kind_added(unmarked: dict[str, Any]) -> dict[str, Any]:
    """Version 1 (azmc 0.2) to 2: the same fields; the kind alone is new."""
    return unmarked


MEMORY = CarriedShape("azmc.offerings.memory", OfferingsMemory, upgrades=(_kind_added,), unmarked=1)


@workflow.defn(name=OFFERINGS_WORKFLOW_TYPE)
class Offerings:
    @workflow.init
    def __init__(self, *args: Any) -> None:
        # Updates may run before `run` starts: the state exists from the first moment (None: a bad input,
        # which `run` fails with; updates are refused until then).
        self._input_error: ApplicationError | None = None
        self._memory: OfferingsMemory = OfferingsMemory(subscription="", location="")
        try:
            self._memory = _decode_input(args)
        except ApplicationError as err:
            self._input_error = err
        self._changed = False
        # Updates refused because their payload did not decode (workflows/refusals.py), shown in the details.
        self._refused: list[RefusedMessage] = []
        self._refusals = Refusals(self._note_refused)

    @workflow.run
    async def run(self, *args: Any) -> None:
        if self._input_error is not None:
            workflow.logger.warning(f"[offerings {workflow.info().workflow_id}] rejected input: {self._input_error}")
            raise self._input_error
        self._prune()
        self._show()
        while True:
            await workflow.wait_condition(lambda: self._changed or self._history_is_long() or upgrade_due())
            self._changed = False
            self._prune()
            self._show()
            if self._history_is_long() or upgrade_due():  # between requests: the safe point
                await workflow.wait_condition(workflow.all_handlers_finished)
                self._prune()
                self._memory.runs += 1
                # A memory started on the machines' queue (before it had its own) moves to its own here.
                continue_as_new(self._memory, task_queue=offerings_task_queue(workflow.info().task_queue))

    @workflow.signal(name=UPGRADE_SIGNAL)
    def upgrade(self, *args: Any) -> None:
        """A wake only: the memory continues as new between requests when a newer version is current."""

    @workflow.update(name=OFFERINGS_CLAIM_UPDATE)
    def claim(self, *args: Any) -> Claim:
        """The offering `request.machine` tries now: not refused, and proven or not being probed by another."""
        accepted(OFFERINGS_CLAIM_UPDATE, args)
        request = _one(ClaimRequest, OFFERINGS_CLAIM_UPDATE, args)
        memory, now = self._memory, workflow.now()
        self._changed = True
        if request.usages_error:
            workflow.logger.warning(f"[offerings {self._place}] usages not read ({request.usages_error}): "
                                    "quota is not foreseen until the next reading")
        # Read the resource SKUs (once a day), or the usages, or wait for the usages' first reading.
        first = skus.before_claim(memory, request, now) or quota.before_claim(memory, request, now)
        if first is not None:
            return first
        over_quota, unsupported = quota.over_quota(memory, request, now), skus.unsupported(memory, request, now)
        refusals = quota.standing(memory, request, over_quota)
        answer, memory.probes = claim_offering(request.offerings, request.machine, refusals,
                                               memory.probes, memory.proven, now,
                                               lambda offering: unsupported(offering) or over_quota(offering))
        return skus.answered(memory, quota.counted(memory, request, answer, now))

    @workflow.update(name=OFFERINGS_REFUSED_UPDATE)
    def refused(self, *args: Any) -> Refusal | None:
        """An attempt ended: its probe ends; `worked` proves the offering; a capacity refusal is remembered
        and returned (how wide, until when); None otherwise."""
        accepted(OFFERINGS_REFUSED_UPDATE, args)
        report = _one(RefusalReport, OFFERINGS_REFUSED_UPDATE, args)
        memory, now = self._memory, workflow.now()
        memory.probes, memory.proven = outcome(report.offering, report.machine, report.worked, memory.probes,
                                               memory.proven, now)
        if not report.worked:
            quota.refused(memory, report)
        self._changed = True
        refusal = None if report.worked else refusal_of(report.offering, report.code, report.message, now,
                                                         report.machine)
        if refusal is None:
            return None
        kept = [r for r in self._memory.refusals if r.key != refusal.key]
        self._memory.refusals = [*kept, refusal]
        self._changed = True
        workflow.logger.info(f"[offerings {self._place}] {refusal.scope()} refused ({refusal.code}) "
                             f"until {refusal.until:%H:%M:%S} UTC, reported by {refusal.machine or '?'}")
        return refusal

    @workflow.update(name=OFFERINGS_RELEASE_UPDATE)
    def release(self, *args: Any) -> int:
        """A machine stopped (deleted, Failed, continued as new): its probes end, so the machines waiting for
        their outcome try those offerings at their next question; how many ended."""
        accepted(OFFERINGS_RELEASE_UPDATE, args)
        request = _one(ProbeRelease, OFFERINGS_RELEASE_UPDATE, args)
        self._memory.probes, count = released(request.machine, self._memory.probes, workflow.now())
        quota.ended(self._memory, request.machine)
        self._changed = True
        if count:
            workflow.logger.info(f"[offerings {self._place}] {count} probes of {request.machine} released "
                                 f"({request.reason or 'no reason given'})")
        return count

    @refused.validator
    def _validate_refused(self, *args: Any) -> None:
        self._check_open(OFFERINGS_REFUSED_UPDATE, args)
        report = _one(RefusalReport, OFFERINGS_REFUSED_UPDATE, args)
        self._check_place(report.offering.subscription, report.offering.location)

    @release.validator
    def _validate_release(self, *args: Any) -> None:
        self._check_open(OFFERINGS_RELEASE_UPDATE, args)
        request = _one(ProbeRelease, OFFERINGS_RELEASE_UPDATE, args)
        self._check_place(request.subscription, request.location)

    @claim.validator
    def _validate_claim(self, *args: Any) -> None:
        self._check_open(OFFERINGS_CLAIM_UPDATE, args)
        request = _one(ClaimRequest, OFFERINGS_CLAIM_UPDATE, args)
        self._check_place(request.subscription, request.location)

    def _check_open(self, name: str, args: Sequence[Any]) -> None:
        self._refusals.validate(name, args)
        if self._input_error is not None:
            raise invalid_input(f"{name}: this memory has no valid input ({self._input_error})")

    def _check_place(self, subscription: str, location: str) -> None:
        if (subscription, location) != (self._memory.subscription, self._memory.location):
            raise invalid_input(f"offerings of {subscription}/{location} sent to the memory of {self._place}")

    @workflow.update(name=OFFERINGS_FORGET_UPDATE)
    def forget(self, *args: Any) -> Forgotten:
        """An operator knows capacity is back: every refusal and every probe is dropped; how many of each were
        in force. Takes no payload; one that does not decode is refused, any other is not read."""
        accepted(OFFERINGS_FORGET_UPDATE, args)
        now, memory = workflow.now(), self._memory
        forgotten = Forgotten(refusals=sum(1 for r in memory.refusals if r.until > now),
                              probes=sum(1 for p in memory.probes if p.until > now))
        memory.refusals, memory.probes = [], []
        self._changed = True
        workflow.logger.info(f"[offerings {self._place}] {forgotten.refusals} refusals and {forgotten.probes} "
                             "probes forgotten on request")
        return forgotten

    @forget.validator
    def _validate_forget(self, *args: Any) -> None:
        self._check_open(OFFERINGS_FORGET_UPDATE, args)

    @workflow.query(name=OFFERINGS_AVAILABLE_QUERY)
    def available(self, question: OfferingsQuestion) -> Availability:
        return availability(question.offerings, self._memory.refusals, question.at)

    @workflow.query(name=OFFERINGS_ENTRIES_QUERY)
    def entries(self) -> list[Refusal]:
        """The refusals not yet expired at the last workflow task (a reader filters by its own clock too)."""
        now = workflow.now()
        return [r for r in self._memory.refusals if r.until > now]

    @workflow.query(name=OFFERINGS_PROBES_QUERY)
    def probes(self) -> list[Probe]:
        """The probes in force at the last workflow task: who tries which offering now (a reader filters by its
        own clock too)."""
        now = workflow.now()
        return [p for p in self._memory.probes if p.until > now]

    # ---- helpers ----------------------------------------------------------------------------

    @property
    def _place(self) -> str:
        return f"{self._memory.subscription}/{self._memory.location}"

    def _history_is_long(self) -> bool:
        return history_is_long(self._memory.history_limit)

    def _prune(self) -> None:
        now, memory = workflow.now(), self._memory
        memory.refusals = [r for r in memory.refusals if r.until > now]
        memory.probes = [p for p in memory.probes if p.until > now]
        memory.proven = [p for p in memory.proven if p.until > now]
        memory.quota_claims = uncounted(memory.quota_claims, memory.usages, now)

    def _show(self) -> None:
        workflow.set_current_details(render_memory(self._memory, workflow.now(), self._refused))

    def _note_refused(self, message: RefusedMessage) -> None:
        self._refused = recent(self._refused, message)
        self._changed = True  # shown at the next task (a validator cannot set the details)


def _decode_input(args: Sequence[Any]) -> OfferingsMemory:
    if refused_at_start():
        raise invalid_input(REFUSED_AT_START)
    if len(args) != 1:
        raise invalid_input(f"input: expected one OfferingsMemory, got {len(args)} values")
    if isinstance(args[0], Undecodable):
        raise invalid_input(refuse_input(args[0], "input"))
    try:
        return MEMORY.decode(args[0])  # a new memory is of the current version
    except ValidationError as err:
        raise invalid_input(describe_validation_error(err, "OfferingsMemory")) from None
    except ValueError as err:  # not a memory at all
        raise invalid_input(f"input: expected an OfferingsMemory ({err})") from None


def _one(model: type[Model], name: str, args: Sequence[Any]) -> Model:
    """An update's one payload as `model`; its validator refuses anything else, naming why."""
    if len(args) != 1:
        raise invalid_input(f"{name}: expected one {model.__name__}, got {len(args)} values")
    try:
        return model.model_validate(args[0])
    except ValidationError as err:
        raise invalid_input(describe_validation_error(err, f"{name} ({model.__name__})")) from None


def render_memory(memory: OfferingsMemory, now: datetime, refused: Sequence[RefusedMessage] = ()) -> str:
    """Markdown for the Temporal UI's current details: every refusal still in force, the probes in flight (and
    messages refused)."""
    lines = [f"## Offerings refused in {memory.location} (subscription {memory.subscription})", ""]
    notes = ["", "**Messages refused** (payload not decodable):", *(f"- {m.describe()}" for m in refused)]
    current = sorted((r for r in memory.refusals if r.until > now), key=lambda r: r.until)
    probes = sorted((p for p in memory.probes if p.until > now), key=lambda p: p.until)
    if not current:
        lines.append("Nothing refused." if probes else "Nothing refused: every offering may be tried.")
    else:
        lines += ["| offering | code | refused | retry after | reported by |", "|---|---|---|---|---|"]
        lines += [f"| {r.scope()} | {r.code} | {r.refused_at:%H:%M:%S} UTC | {r.until:%H:%M:%S} UTC | "
                  f"{r.machine or '-'} |" for r in current]
    if probes:
        lines += ["", "### Being tried (other machines wait for the outcome)", "",
                  "| offering | machine | since | until |", "|---|---|---|---|"]
        lines += [f"| {p.offering.describe()} | {p.holder()} | {p.began():%H:%M:%S} UTC | {p.until:%H:%M:%S} UTC |"
                  for p in probes]
    lines += quota_lines(memory, now)
    if memory.runs > 1:
        lines += ["", f"Run {memory.runs} (continued as new)"]
    return "\n".join([*lines, *(notes if refused else [])])


def quota_lines(memory: OfferingsMemory, now: datetime) -> list[str]:
    """The last reading of the usages, with the vCPUs claimed since (models/quota.py)."""
    reading = memory.usages
    if reading is None:
        return []
    if reading.error:
        return ["", f"### Quota: usages not read at {reading.taken_at:%H:%M:%S} UTC ({reading.error})"]
    claims = uncounted(memory.quota_claims, reading, now)
    rows = [(u, sum(c.vcpus_against(u.name) for c in claims)) for u in reading.usages]
    lines = ["", f"### Quota read at {reading.taken_at:%H:%M:%S} UTC (the quotas in use)", "",
             "| quota | in use | claimed since | limit |", "|---|---|---|---|"]
    return lines + [f"| {u.name} | {u.current} | {claimed} | {u.limit} |"
                    for u, claimed in rows if u.current or claimed]
