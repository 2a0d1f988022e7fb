"""How a machine heals, as its workflow keeps it: the health timeout of a VM missing or Failed (health.py) and
the repair ladder of an Unhealthy one (repair.py). Where each stands is carried through continue-as-new
(`state.unknown_since`, `status.repair`); the timers that end their waits belong to this run, started when first
asked, so a continued run starts them again from the carried times. Deterministic; no Azure calls.
"""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.health import RepairAction

from workflows.deadlines import Deadline
from workflows.machine.state import LifecycleState


class Healing:
    """The health timeout and the repair ladder of one machine (`Machine.healing`)."""

    def __init__(self, state: LifecycleState) -> None:
        self._state = state
        # While missing or unhealthy: the health timeout, a timer of this run.
        self._health_deadline: Deadline | None = None
        # While Unhealthy: the end of the repair ladder's current wait, a timer of this run.
        self._repair_deadline: Deadline | None = None

    def health_timeout(self) -> Deadline | None:
        """The health timeout's deadline while the machine is missing or unhealthy (state.unknown_since), a timer
        started in this run when first asked (a continued run carries unknown_since only); None otherwise."""
        since = self._state.unknown_since
        if since is None:
            return None
        if self._health_deadline is None:
            self._health_deadline = Deadline(since + self._state.spec.timeouts.health, "health timeout")
        return self._health_deadline

    def healthy_again(self) -> None:
        """No health timeout runs any more (healthy, started, re-created, preserved, or nothing to re-create)."""
        self._state.unknown_since = None
        if self._health_deadline is not None:
            self._health_deadline.cancel()
            self._health_deadline = None

    def repair_deadline(self) -> Deadline | None:
        """The end of the current wait of the repair ladder (timeouts.health before the first step, the step's
        `wait` after it), a timer of this run; None when no repair is under way or no step is left to take."""
        progress = self._state.status.repair
        steps = self._state.spec.health.repair
        # A held step (status.repair.held) has no timer: its passed one would wake the run again at once, and the
        # machine would read Azure in a loop for as long as the hold lasts; the health checks look again.
        if progress is None or progress.step >= len(steps) or progress.action == RepairAction.RECREATE \
                or progress.held:
            return None
        wait = self._state.spec.timeouts.health if progress.step < 0 else steps[progress.step].wait
        at = progress.started_at + wait
        if self._repair_deadline is None or self._repair_deadline.at != at:
            self._drop_repair_deadline()
            self._repair_deadline = Deadline(at, "repair: time to become healthy")
        return self._repair_deadline

    def hold(self, why: str) -> None:
        """The current wait is over, but its next step must wait (`why`): carried in the status, looked at again
        at every health check, with no timer. A leave its pool gave for another step is void."""
        progress = self._state.status.repair
        if progress is not None:
            self._state.status.repair = progress.model_copy(update={"held": why, "allowed": ""})
        self._drop_repair_deadline()

    def allow(self, action: str) -> bool:
        """The pool allowed `action` as this machine's next repair step; False when no repair waits for it."""
        progress = self._state.status.repair
        if progress is None or not progress.held:
            return False
        self._state.status.repair = progress.model_copy(update={"allowed": action})
        return True

    def nothing_to_heal(self) -> None:
        """Neither the health timeout nor a repair applies (a stopped VM is started, an evicted Spot VM re-created,
        a deleted resource group awaited)."""
        self.healthy_again()
        self.repaired()

    def repaired(self) -> None:
        """Healthy again, or the VM gone or re-created: the ladder ends."""
        self._state.status.repair = None
        self._drop_repair_deadline()

    def _drop_repair_deadline(self) -> None:
        if self._repair_deadline is not None:
            self._repair_deadline.cancel()
            self._repair_deadline = None
