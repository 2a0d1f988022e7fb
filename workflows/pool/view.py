"""How a pool shows: the `status` query's PoolStatus, a one-sentence summary, search attributes, current details.

Built from the carried PoolState on demand (nothing here is state), so status, UI and search attributes agree.
"""

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from temporalio import workflow
from temporalio.common import SearchAttributeUpdate

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.pool import PoolMachine, PoolStatus, RolloutPhase
    from models.pool_status import POOL_MEMO, PoolHeadline
    from models.search_attributes import (
        AZMC_POOL,
        AZMC_POOL_AVAILABLE,
        AZMC_POOL_PHASE,
        AZMC_POOL_REPLICAS,
        AZMC_POOL_UPDATED,
        AZMC_RESOURCE_GROUP,
    )
    from models.status import Phase

from workflows.pool.plan import available, counted
from workflows.pool.state import PoolState

_CREATING = (Phase.PENDING, Phase.CREATING, Phase.CRASH_LOOP_BACK_OFF)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def rollout_phase(state: PoolState, rolling: bool, now: datetime) -> RolloutPhase:
    if state.delete_request is not None:
        return RolloutPhase.DELETING
    if rolling and state.stuck:
        return RolloutPhase.STUCK
    if rolling and state.paused:
        return RolloutPhase.PAUSED
    if rolling:
        return RolloutPhase.ROLLING
    alive = [m for m in state.machines if counted(m)]
    settled = len(alive) == state.spec.replicas and all(available(m) for m in alive)
    if settled and not any(m.deleting for m in state.machines):
        return RolloutPhase.STABLE
    # As many as replicas, none of them new: what is not available is being repaired (or replaced), not scaled.
    if len(alive) == state.spec.replicas and not any(_new(m) for m in alive) and repairs(state).total:
        return RolloutPhase.REPAIRING
    return RolloutPhase.SCALING


def _new(machine: PoolMachine) -> bool:
    """Created by a scale-up, not yet Running: scaling, not a repair."""
    return machine.phase in _CREATING and not machine.ran and not machine.replacement


@dataclass(frozen=True)
class Repairs:
    """The pool's machines that do not serve as they did, by what is done about them."""

    unhealthy: int = 0  # Unhealthy: their repair ladder runs (restart, redeploy, re-create)
    unknown: int = 0  # their VM is missing, Failed or stopped: read again, re-created after the health timeout
    failed: int = 0  # Failed: replaced (within max_replacements) or preserved
    recreating: int = 0  # being re-created, or a new machine replacing a Failed one
    replaced: int = 0  # Failed machines being deleted, their replacements counted (the summary says "deleting")

    @property
    def total(self) -> int:
        return self.unhealthy + self.unknown + self.failed + self.recreating + self.replaced

    def line(self) -> str:
        parts = [(self.unhealthy, "unhealthy"), (self.unknown, "unknown"), (self.failed, "failed"),
                 (self.recreating, "being re-created")]
        return ", ".join(f"{count} {what}" for count, what in parts if count)


def repairs(state: PoolState) -> Repairs:
    alive = [m for m in state.machines if counted(m)]
    phases = Counter(m.phase for m in alive)
    return Repairs(unhealthy=phases[Phase.UNHEALTHY], unknown=phases[Phase.UNKNOWN], failed=phases[Phase.FAILED],
                   recreating=sum(1 for m in alive if m.phase in _CREATING and (m.ran or m.replacement)),
                   replaced=sum(1 for m in state.machines if m.deleting and m.phase == Phase.FAILED))


def quota_held(alive: list[PoolMachine], replicas: int) -> tuple[int, str]:
    """How many of the counted machines wait Pending for quota, and why in a line (the commonest reason)."""
    reasons = [m.waiting_for_quota for m in alive if m.phase == Phase.PENDING and m.waiting_for_quota]
    if not reasons:
        return 0, ""
    ((reason, _),) = Counter(reasons).most_common(1)
    return len(reasons), f"{len(reasons)} of {replicas} wait for quota: {reason}"


def build_status(state: PoolState, now: datetime, held: str = "", repairs_held: str = "") -> PoolStatus:
    spec, target = state.spec, state.revision
    alive = [m for m in state.machines if counted(m)]
    rolling = any(m.revision != target for m in alive)
    phase = rollout_phase(state, rolling, now)
    status = PoolStatus(
        name=spec.name, resource_group=spec.resource_group, phase=phase, replicas=spec.replicas,
        current=len(alive), ready=sum(1 for m in alive if m.phase == Phase.RUNNING),
        updated=sum(1 for m in alive if m.revision == target),
        available=sum(1 for m in alive if available(m)),
        current_revision=state.current_revision, target_revision=target, paused=state.paused,
        replacements_held=held, repairs_held=repairs_held, machines=list(state.machines),
        recent_operations=list(state.operations),
        runs=state.runs, settings=spec.settings, ignored_notices=list(state.ignored),
        azure_checked=state.azure_checked, left_in_azure=list(state.left_in_azure))
    status.quota_waiting, status.quota_held = quota_held(alive, spec.replicas)
    if phase == RolloutPhase.REPAIRING:
        status.repairing = repairs(state).total
    status.rollout_message = _rollout_message(state, status)
    status.summary = summary(state, status, now)
    return status


def _rollout_message(state: PoolState, status: PoolStatus) -> str:
    if status.phase == RolloutPhase.STUCK:
        old = status.current - status.updated
        return (f"rollout to rev {status.target_revision} stuck: no machine of it became Running within "
                f"{humanize(state.spec.template.timeouts.creation)} (the template's creation timeout); "
                f"{_plural(old, 'machine')} of the previous revision keep serving"
                + (f" ({status.quota_held})" if status.quota_held else "")
                + ". set_template to roll back, or resume to try again")
    if status.phase == RolloutPhase.PAUSED:
        return f"rollout to rev {status.target_revision} paused at {status.updated}/{status.replicas}: resume to go on"
    return ""


def summary(state: PoolState, status: PoolStatus, now: datetime) -> str:
    """One sentence: "rolling 3/5 to rev b7c1e, 1 surge machine creating"."""
    target = status.target_revision
    alive = [m for m in state.machines if counted(m)]
    new_available = sum(1 for m in alive if m.revision == target and available(m))
    creating = sum(1 for m in alive if m.phase in _CREATING) - status.quota_waiting
    deleting = sum(1 for m in state.machines if m.deleting)
    if status.phase == RolloutPhase.DELETING and not state.machines:
        text = "deleting: reading Azure by the pool's tag for anything left"
    elif status.phase == RolloutPhase.DELETING:
        text = f"deleting: {_plural(len(state.machines), 'machine')} left"
    elif status.phase in (RolloutPhase.ROLLING, RolloutPhase.PAUSED, RolloutPhase.STUCK):
        verb = {RolloutPhase.ROLLING: "rolling", RolloutPhase.PAUSED: "paused rolling",
                RolloutPhase.STUCK: "stuck rolling"}[status.phase]
        text = f"{verb} {new_available}/{status.replicas} to rev {target}"
        surge = max(0, status.current - status.replicas)
        if surge:
            text += f", {_plural(surge, 'surge machine')} {'creating' if creating else 'up'}"
    elif status.phase == RolloutPhase.REPAIRING:
        text = f"repairing: {status.available}/{status.replicas} available"
        if repairs(state).line():
            text += f", {repairs(state).line()}"
    elif status.phase == RolloutPhase.SCALING:
        text = f"scaling to {status.replicas}: {status.available} available"
        if creating:
            text += f", {creating} creating"
    else:
        text = f"{status.available}/{status.replicas} available on rev {target}"
    if deleting and status.phase != RolloutPhase.DELETING:
        text += f", {deleting} deleting"
    preserved = sum(1 for m in state.machines if m.preserved)
    if preserved:
        text += f", {preserved} preserved"
    if status.replacements_held:
        text += ("; replacements backing off: they failed without running" if "without ever running"
                 in status.replacements_held else "; replacements held back by max_replacements")
    if status.repairs_held:
        text += f"; {status.repairs_held}"
    if status.quota_held:
        text += f"; {status.quota_held}"
    return text


def render_details(state: PoolState, status: PoolStatus) -> str:
    """Markdown for the Temporal UI's current details."""
    last = status.recent_operations[-1] if status.recent_operations else None
    lines = [
        f"## pool {status.name} - {status.phase}",
        status.summary,
        "",
        f"- **Replicas:** {status.replicas} desired, {status.current} current, {status.ready} ready, "
        f"{status.updated} updated, {status.available} available",
        f"- **Revision:** target {status.target_revision}, last completed {status.current_revision or 'none yet'}",
        f"- **Last operation:** {last.kind}: {last.description}" if last else "- **Last operation:** none yet",
    ]
    if status.rollout_message:
        lines.append(f"- **Rollout:** {status.rollout_message}")
    if status.replacements_held:
        lines.append(f"- **Replacements held:** {status.replacements_held}")
    if status.repairs_held:
        lines.append(f"- **Repairs:** {status.repairs_held}")
    if status.quota_held:
        lines.append(f"- **Quota:** {status.quota_held}")
    if state.delete_request is not None:
        lines.append(f"- **Deletion requested:** {state.delete_request.reason or 'no reason given'}")
    if state.runs > 1:
        lines.append(f"- **Run:** {state.runs} (continued as new)")
    return "\n".join(lines)


class PoolView:
    """Keeps search attributes and the memo's headline (upserted only on change: each upsert is a history event) and
    details current."""

    def __init__(self) -> None:
        self._upserted: dict[str, Any] = {}
        self._headline: dict[str, Any] = {}

    def show(self, state: PoolState, status: PoolStatus) -> None:
        wanted: dict[str, SearchAttributeUpdate[Any]] = {AZMC_POOL.name: AZMC_POOL.value_set(status.name),
                  AZMC_RESOURCE_GROUP.name: AZMC_RESOURCE_GROUP.value_set(status.resource_group),
                  AZMC_POOL_PHASE.name: AZMC_POOL_PHASE.value_set(str(status.phase)),
                  AZMC_POOL_REPLICAS.name: AZMC_POOL_REPLICAS.value_set(status.replicas),
                  AZMC_POOL_AVAILABLE.name: AZMC_POOL_AVAILABLE.value_set(status.available),
                  AZMC_POOL_UPDATED.name: AZMC_POOL_UPDATED.value_set(status.updated)}
        changed = [update for name, update in wanted.items() if self._upserted.get(name) != update.value]
        if changed:
            workflow.upsert_search_attributes(changed)
            self._upserted.update({update.key.name: update.value for update in changed})
        headline = PoolHeadline.of(status).model_dump(mode="json")
        if headline != self._headline:
            workflow.upsert_memo({POOL_MEMO: headline})
            self._headline = headline
        workflow.set_current_details(render_details(state, status))
