"""Never repair the fleet to death: which of a pool's Unhealthy machines may take their next repair step now.

A machine asks before each step (machine/repair.py); the pool allows restarts while at most max_unhealthy of
its machines are Unhealthy, and redeploys and re-creations (they take a machine away) only max_replacements at
a time. Above max_unhealthy every repair stops, until fewer are Unhealthy or an operator's `resume_repairs`.
Deterministic: the workflow sends what this decides.
"""

from dataclasses import dataclass, field
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.health import REPLACING_ACTIONS, RepairAction
    from models.status import Phase

from workflows.pool.book import PoolBook
from workflows.pool.plan import counted
from workflows.pool.state import PoolState

# A replacing repair is over once its machine is back (Running), has failed, or is gone.
_BACK = (Phase.RUNNING, Phase.FAILED, Phase.DELETED)
# Machines that ask: Unhealthy ones (the repair ladder), and those redeploying ahead of Azure (models/foresight.py).
_ASKING = (Phase.UNHEALTHY, Phase.MAINTENANCE)


@dataclass
class RepairLeave:
    allowed: list[tuple[str, str]] = field(default_factory=list)  # (machine, action)
    held: str = ""  # why asked repairs wait, "" when none does
    surged: list[str] = field(default_factory=list)  # machines a surge replaces instead (zero unavailable)


def unhealthy_count(state: PoolState) -> tuple[int, int]:
    """(Unhealthy machines, machines) of those counted towards replicas."""
    machines = [m for m in state.machines if counted(m)]
    return sum(1 for m in machines if m.phase == Phase.UNHEALTHY), len(machines)


def asked(state: PoolState, args: tuple[Any, ...]) -> bool:
    """`repair_wanted` `{"name", "action"}` from a machine of this pool: True when it is an ask to answer."""
    ask = args[0] if len(args) == 1 and isinstance(args[0], dict) else {}
    name, action = str(ask.get("name", "")), str(ask.get("action", ""))
    if state.machine(name) is None or action not in {a.value for a in RepairAction}:
        return False
    state.repairs_wanted[name] = action
    return True


def resume(state: PoolState, book: PoolBook) -> None:
    """An operator's `resume_repairs`: repairs go on above max_unhealthy, until fewer machines are Unhealthy."""
    unhealthy, machines = unhealthy_count(state)
    if unhealthy <= state.spec.unhealthy_limit():
        book.operation("resume_repairs", f"repairs are not paused: {unhealthy} of {machines} unhealthy, within "
                       f"max_unhealthy {state.spec.max_unhealthy}")
    elif not state.repairs_forced:
        state.repairs_forced = True
        book.operation("resume_repairs", f"repairs resumed by an operator: {unhealthy} of {machines} unhealthy, "
                       f"above max_unhealthy {state.spec.max_unhealthy}, until fewer are")


def _surge_first(state: PoolState, phase: Phase, action: str) -> bool:
    """A redeploy ahead of Azure's maintenance in a pool asking for zero unavailable: a surge machine replaces the
    machine first (Running before it goes), as a rolling update with max_unavailable 0 would."""
    return phase == Phase.MAINTENANCE and action == RepairAction.REDEPLOY.value \
        and state.spec.strategy.max_unavailable == 0


def show(book: PoolBook, leave: RepairLeave, held_before: str) -> str:
    """What the pool decided, as operations; returns what holds repairs now."""
    if leave.held != held_before and leave.held:
        book.operation("repairs", leave.held)
    for name, action in leave.allowed:
        book.operation("repair", f"{name}: {action} allowed")
    for name in leave.surged:
        book.operation("replace", f"{name}: redeploys ahead of Azure's maintenance; max_unavailable 0: a surge "
                                  "machine replaces it, Running before it goes")
    return leave.held


def decide(state: PoolState) -> RepairLeave:
    machines = {m.name: m for m in state.machines if counted(m)}
    state.repairs_in_flight = [n for n in state.repairs_in_flight if n in machines and machines[n].phase not in _BACK]
    state.repairs_wanted = {n: a for n, a in state.repairs_wanted.items() if n in machines}
    unhealthy, _ = unhealthy_count(state)
    # An ask is answered once the pool has heard the machine is Unhealthy (or in Maintenance): the notice may come
    # after the ask, and
    # a replacing repair's slot is freed by the machine's next phase, so the pool must know the one before.
    asking = sorted((n, a) for n, a in state.repairs_wanted.items() if machines[n].phase in _ASKING)
    leave = RepairLeave()
    if unhealthy <= state.spec.unhealthy_limit():
        state.repairs_forced = False  # the outage is over: the next one pauses repairs again
    elif not state.repairs_forced:
        if asking:
            leave.held = (f"repairs paused: {unhealthy} of {len(machines)} unhealthy, above max_unhealthy "
                          f"{state.spec.max_unhealthy}")
        return leave
    waiting = 0
    for name, action in asking:
        if _surge_first(state, machines[name].phase, action):
            state.surged_ahead.append(name)
            leave.surged.append(name)
            del state.repairs_wanted[name]
            continue
        if RepairAction(action) in REPLACING_ACTIONS and name not in state.repairs_in_flight:
            if len(state.repairs_in_flight) >= state.spec.max_replacements:
                waiting += 1
                continue
            state.repairs_in_flight.append(name)
        leave.allowed.append((name, action))
        del state.repairs_wanted[name]
    if waiting:
        leave.held = (f"{waiting} redeploy or re-creation waiting: {len(state.repairs_in_flight)} in flight, "
                      f"max_replacements {state.spec.max_replacements}")
    return leave
