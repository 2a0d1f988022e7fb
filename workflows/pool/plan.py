"""What a pool does next: pure decisions from its machines, its spec and which of its deadlines passed (its
timers, clock.py: never a clock reading; no Temporal calls).

The pool's loop asks `plan` after every change and carries out the answer (children.py); tests pin
the decisions here without a server (tests/workflows/test_pool_plan_unit.py).
- Healing: Failed machines are preserved (up to preserve_failed) or deleted and replaced, at most
  max_replacements replacements not yet Running at once (MCM's meltdown guard); the rest wait, said so.
- Scaling: create in parallel; delete in MCM's order (scale_down_order).
- Rolling update: at most replicas + max_surge machines, at least replicas - max_unavailable available;
  a machine is available once Running for min_ready (`ready`). No progress for the template's creation timeout
  (`stalled`): stuck,
  and the rollout stops (old machines keep serving) until set_template or resume.
"""

from dataclasses import dataclass, field
from types import MappingProxyType

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.pool import PoolMachine, PoolSpec
    from models.status import Phase

# Scale-down order, first deleted first: broken before healthy, and among Running ones older revisions,
# then the newest (the machines that ran longest stay).
_UNHEALTHY_RANK = MappingProxyType({Phase.FAILED: 0, Phase.CRASH_LOOP_BACK_OFF: 1, Phase.PENDING: 2,
                                    Phase.CREATING: 2, Phase.UNKNOWN: 3})  # read-only: shared (workers/sandbox.py)
_CREATING = (Phase.PENDING, Phase.CREATING, Phase.CRASH_LOOP_BACK_OFF)


@dataclass
class Plan:
    create: int = 0
    # How many of `create` replace Failed machines (they count against max_replacements until Running).
    replacements: int = 0
    delete: list[tuple[str, str]] = field(default_factory=list)  # (name, why)
    preserve: list[str] = field(default_factory=list)
    rolling: bool = False
    stuck: bool = False
    # Why Failed machines wait (the meltdown guard), "" when none waits.
    held: str = ""


def counted(machine: PoolMachine) -> bool:
    """Counts towards replicas: neither preserved nor being deleted."""
    return not machine.preserved and not machine.deleting


def available(machine: PoolMachine) -> bool:
    return machine.phase == Phase.RUNNING and machine.ready


def steady(spec: PoolSpec, machines: list[PoolMachine]) -> bool:
    """The pool's replicas are all there and available: its scale or roll is over."""
    alive = [m for m in machines if counted(m)]
    return len(alive) == spec.replicas and all(available(m) for m in alive)


def scale_down_order(machines: list[PoolMachine], target: str) -> list[PoolMachine]:
    """Failed, CrashLoopBackOff, Pending/Creating, Unknown, older revisions (oldest first), newest Running."""
    def key(m: PoolMachine) -> tuple[int, float]:
        stamp = m.since.timestamp() if m.since else 0.0
        if m.phase in _UNHEALTHY_RANK:
            return _UNHEALTHY_RANK[m.phase], stamp
        if m.revision != target:
            return 4, stamp
        return 5, -stamp
    return sorted(machines, key=key)


def _heal(spec: PoolSpec, alive: list[PoolMachine], preserved: int, plan: Plan,
          backing_off: str = "") -> list[PoolMachine]:
    """Failed machines within the guard are preserved or deleted; returns those that still count. `backing_off`:
    why none is, now (replacements that failed without running, clock.py)."""
    failed = sorted((m for m in alive if m.phase == Phase.FAILED), key=_age)
    if failed and backing_off:
        plan.held = f"{len(failed)} Failed machine{'s' if len(failed) > 1 else ''} not replaced yet: {backing_off}"
        return alive
    in_flight = sum(1 for m in alive if m.replacement and m.phase in _CREATING)
    handled = failed[:max(0, spec.max_replacements - in_flight)]
    for machine in handled:
        if preserved < spec.preserve_failed:
            plan.preserve.append(machine.name)
            preserved += 1
        else:
            plan.delete.append((machine.name, "Failed: replaced"))
    waiting = len(failed) - len(handled)
    if waiting:
        plan.held = (f"{waiting} Failed machine{'s' if waiting > 1 else ''} wait{'s' if waiting == 1 else ''} "
                     f"for a replacement: max_replacements {spec.max_replacements} allows {spec.max_replacements} "
                     f"at once and {in_flight + len(handled)} {'is' if in_flight + len(handled) == 1 else 'are'} "
                     "not Running yet (meltdown guard)")
    plan.replacements = len(handled)
    names = {m.name for m in handled}
    return [m for m in alive if m.name not in names]


def _trim(machines: list[PoolMachine], limit: int, target: str, why: str, plan: Plan) -> list[PoolMachine]:
    excess = len(machines) - limit
    if excess <= 0:
        return machines
    gone = scale_down_order(machines, target)[:excess]
    plan.delete += [(m.name, why) for m in gone]
    names = {m.name for m in gone}
    return [m for m in machines if m.name not in names]


def _age(machine: PoolMachine) -> float:
    """Oldest first: when it entered its phase (one never heard of last)."""
    return machine.since.timestamp() if machine.since else float("inf")


def _roll(spec: PoolSpec, target: str, alive: list[PoolMachine], plan: Plan) -> None:
    """One step of a rolling update: replace old-revision machines within the strategy's bounds."""
    replicas = spec.replicas
    old = [m for m in alive if m.revision != target]
    old_down = [m for m in scale_down_order(old, target) if not available(m)]
    plan.delete += [(m.name, f"rolling to rev {target}") for m in old_down]
    available_now = sum(1 for m in alive if available(m))
    may_drop = available_now - (replicas - spec.strategy.max_unavailable)
    old_up = sorted((m for m in old if available(m)), key=_age)
    plan.delete += [(m.name, f"rolling to rev {target}") for m in old_up[:max(0, may_drop)]]


def _leave_replaced(spec: PoolSpec, alive: list[PoolMachine], preempted: frozenset[str], surged: frozenset[str],
                    plan: Plan) -> list[PoolMachine]:
    """Spot machines whose eviction Azure announced, and machines a surge replaces ahead of a maintenance, count no
    more (their replacement starts now), max_replacements of them at a time; each is deleted once the others are
    enough (`replicas` available), a preempted one also once it is evicted."""
    leaving = [m for m in sorted(alive, key=_age) if m.name in preempted | surged][:spec.max_replacements]
    if not leaving:
        return alive
    names = {m.name for m in leaving}
    staying = [m for m in alive if m.name not in names]
    enough = sum(1 for m in staying if available(m)) >= spec.replicas
    plan.delete += [(m.name, "Spot eviction announced: replaced") for m in leaving
                    if m.name in preempted and (enough or m.phase != Phase.RUNNING)]
    plan.delete += [(m.name, "replaced by a surge ahead of Azure's maintenance (max_unavailable 0)") for m in leaving
                    if m.name not in preempted and enough]
    return staying


def plan(spec: PoolSpec, machines: list[PoolMachine], *, revision: str, paused: bool, stuck: bool,
         stalled: bool = False, expired: frozenset[str] = frozenset(), backing_off: str = "",
         preempted: frozenset[str] = frozenset(), surged: frozenset[str] = frozenset()) -> Plan:
    """What to do next towards `spec` with the template of `revision` (the target). `stalled`: the rollout made no
    progress for the template's creation timeout; `expired`: the preserved machines past preserve_timeout;
    `backing_off`: why Failed machines are not replaced now ("" when they may be); `preempted`: Spot machines whose
    eviction Azure announced (models/foresight.py); `surged`: machines replaced before they redeploy ahead of a
    maintenance (repairs.py)."""
    result = Plan()
    target, replicas = revision, spec.replicas
    preserved = [m for m in machines if m.preserved and not m.deleting]
    alive = _heal(spec, [m for m in machines if counted(m)], len(preserved), result, backing_off)
    alive = _leave_replaced(spec, alive, preempted, surged, result)
    for machine in preserved:  # kept for diagnosis only so long
        if machine.name in expired:
            result.delete.append((machine.name, f"preserved for {humanize(spec.preserve_timeout)}"))
    result.rolling = any(m.revision != target for m in alive)
    result.stuck = result.rolling and (stuck or (not paused and stalled))
    moving = result.rolling and not paused and not result.stuck
    surge = spec.strategy.max_surge if result.rolling else 0
    alive = _trim(alive, replicas + surge, target, f"scaled to {replicas}", result)
    new = sum(1 for m in alive if m.revision == target)
    if moving:
        result.create = max(0, min(replicas + surge - len(alive), replicas - new))
        deleted = {name for name, _ in result.delete}
        _roll(spec, target, [m for m in alive if m.name not in deleted], result)
    else:  # scaling, healing, or a paused or stuck rollout: only as many as replicas
        result.create = max(0, replicas - len(alive))
    result.replacements = min(result.replacements, result.create)
    return result

