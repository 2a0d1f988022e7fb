"""The pool's deadlines as timers, for plan.py to decide on: a machine Running for min_ready (then `ready`, kept
in the state), a preserved machine past preserve_timeout, a rollout without progress for the template's creation
timeout (stalled), the backoff before replacing a machine when the last ones failed without running. Each is a
Deadline (workflows/deadlines.py) whose firing is in history; the clock only sets how long one runs.
"""

from datetime import datetime, timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.status import Phase

from workflows import policies
from workflows.deadlines import Deadline
from workflows.pool.state import PoolState

Key = tuple[str, str, datetime]


class PoolClock:
    def __init__(self) -> None:
        self._deadlines: dict[Key, Deadline] = {}
        self._acted_on: set[Key] = set()

    def read(self, state: PoolState) -> tuple[frozenset[str], bool, str]:
        """Marks the machines whose min_ready passed `ready`; returns the preserved machines past
        preserve_timeout, whether the rollout stalled and why Failed machines' replacements wait ("" when they do
        not). Starts the timers these need, ends those not needed."""
        spec, wanted, expired = state.spec, {}, set()
        for machine in state.machines:
            if machine.since is None or machine.deleting:
                continue
            if machine.phase == Phase.RUNNING and not machine.ready and not machine.preserved:
                if spec.min_ready <= timedelta(0):
                    machine.ready = True
                    continue
                key = ("ready", machine.name, machine.since)
                wanted[key] = self._deadline(key, machine.since + spec.min_ready, f"pool: {machine.name} available")
                machine.ready = wanted[key].passed
            if machine.preserved:
                key = ("preserve", machine.name, machine.since)
                wanted[key] = self._deadline(key, machine.since + spec.preserve_timeout,
                                             f"pool: {machine.name} preserved long enough")
                if wanted[key].passed:
                    expired.add(machine.name)
        stalled = False
        if state.progress_at is not None and state.current_revision != state.revision and not state.paused:
            key = ("stall", state.revision, state.progress_at)
            wanted[key] = self._deadline(key, state.progress_at + spec.template.timeouts.creation,
                                         f"pool: rollout to rev {state.revision} without progress")
            stalled = wanted[key].passed
        held = ""
        if state.unran_failures and state.unran_failed_at is not None:
            # Never longer than a machine's own creation timeout: one that fails only when that ends paces itself.
            cap = min(policies.UNRAN_REPLACEMENT_BACKOFF_CAP, spec.template.timeouts.creation)
            wait = policies.capped_backoff(state.unran_failures, min(policies.UNRAN_REPLACEMENT_BACKOFF_START, cap),
                                           cap)
            key = ("unran", str(state.unran_failures), state.unran_failed_at)
            wanted[key] = self._deadline(key, state.unran_failed_at + wait, "pool: next replacement after failures")
            if not wanted[key].passed:
                held = (f"{state.unran_failures} replacement{'s' if state.unran_failures > 1 else ''} in a row failed "
                        f"without ever running: the next waits {humanize(wait)} from the last (its machines' "
                        "last_error says why: a resource group or template an operator must fix)")
        for key in set(self._deadlines) - set(wanted):
            self._deadlines.pop(key).cancel()
        self._acted_on = {key for key, deadline in wanted.items() if deadline.passed}
        return frozenset(expired), stalled, held

    async def overdue_fired(self, state: PoolState) -> None:
        """A continued run starts its timers anew, and one whose moment passed during the continue-as-new still
        runs SHORTEST_TIMER: the run waits for those before its first decision, so it never acts as if a moment
        it has passed (a stalled rollout) were still ahead. Twice the shortest timer: both fire before it."""
        self.read(state)
        await workflow.sleep(2 * policies.SHORTEST_TIMER, summary="pool: let the deadlines already due fire")

    def fired(self) -> bool:
        """A timer fired that `read` has not reported yet: time alone changed a decision."""
        return any(deadline.passed and key not in self._acted_on for key, deadline in self._deadlines.items())

    def _deadline(self, key: Key, at: datetime, what: str) -> Deadline:
        if key not in self._deadlines:
            self._deadlines[key] = Deadline(at, what)
        return self._deadlines[key]
