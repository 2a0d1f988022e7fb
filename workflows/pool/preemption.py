"""A Spot machine of the pool says Azure announced its eviction (machine/foresight.py, `preempt_announced`): the pool
starts its replacement at once instead of after the eviction, and deletes the doomed machine once the others are
`replicas` available (plan.py's `preempted`), at most max_replacements at a time. A machine that must redeploy ahead
of a maintenance in a pool asking for zero unavailable is replaced the same way (`surged_ahead`, repairs.py)."""

from typing import Any

from workflows.pool.book import PoolBook
from workflows.pool.plan import counted
from workflows.pool.state import PoolState


def announced(state: PoolState, book: PoolBook, args: tuple[Any, ...]) -> bool:
    """`{"name", "event_id"}`: True when it is news (the pool then plans again)."""
    notice = args[0] if len(args) == 1 and isinstance(args[0], dict) else {}
    name = str(notice.get("name", ""))
    machine = state.machine(name)
    if machine is None or machine.deleting or name in state.preempted:
        return False
    state.preempted.append(name)
    book.operation("replace", f"{name}: Azure announced its Spot eviction ({notice.get('event_id', '')}): "
                              "its replacement starts now")
    return True


def forget_gone(state: PoolState) -> None:
    """A preempted or surged-ahead machine no longer counted (deleted, or gone) needs nothing more."""
    names = {m.name for m in state.machines if counted(m)}
    state.preempted = [name for name in state.preempted if name in names]
    state.surged_ahead = [name for name in state.surged_ahead if name in names]
