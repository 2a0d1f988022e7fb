"""The pool's bookkeeping on its PoolState: machine records, names, operations, phase notices.

Deterministic and synchronous (signal handlers call it too); no Temporal commands but log lines.
"""

from datetime import datetime

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.naming import pool_machine_name
    from models.pool import PoolMachine, PoolOperation
    from models.status import Phase

from workflows.pool.state import ENDED_MACHINES_KEPT, IGNORED_NOTICES_KEPT, RECENT_POOL_OPERATIONS, PoolState

_NAMES_SHOWN = 10  # an operation names at most this many machines: hundreds would bloat every status


def names_of(names: list[str]) -> str:
    shown = ", ".join(names[:_NAMES_SHOWN])
    return shown + (f" and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else "")


class PoolBook:
    def __init__(self, state: PoolState) -> None:
        self.state = state
        self._prefix = f"[pool {state.spec.resource_group}/{state.spec.name}] "

    def log(self, message: str) -> None:
        workflow.logger.info(self._prefix + message, extra={"azmc_pool": self.state.spec.name})

    def operation(self, kind: str, description: str) -> None:
        entry = PoolOperation(kind=kind, description=description, at=workflow.now())
        self.state.operations = [*self.state.operations, entry][-RECENT_POOL_OPERATIONS:]
        self.log(f"{kind}: {description}")

    def new_machine(self, now: datetime, replacement: bool) -> PoolMachine:
        """A record for a new machine of the target revision, under the next free name."""
        state, revision = self.state, self.state.revision
        taken = {m.name for m in state.machines}
        while True:
            name = pool_machine_name(state.spec.name, revision, state.counter, state.life)
            state.counter += 1
            if name not in taken:  # the rare suffix collision: the next counter
                break
        machine = PoolMachine(name=name, revision=revision, since=now, replacement=replacement)
        state.machines.append(machine)
        return machine

    def forget(self, name: str, why: str) -> None:
        before = len(self.state.machines)
        self.state.machines = [m for m in self.state.machines if m.name != name]
        if len(self.state.machines) != before:
            self.operation("delete", f"{name} {why}")

    def ended(self, name: str, why: str) -> None:
        """Forget a machine whose workflow ended without deleting it: what it left goes when the pool is deleted."""
        if name not in self.state.ended:
            self.state.ended = [*self.state.ended, name][-ENDED_MACHINES_KEPT:]
        self.forget(name, why)

    def ignore(self, description: str) -> None:
        """A notice the pool did not act on: in its status (the last few) and its log."""
        entry = PoolOperation(kind="ignored", description=description, at=workflow.now())
        self.state.ignored = [*self.state.ignored, entry][-IGNORED_NOTICES_KEPT:]
        workflow.logger.warning(self._prefix + f"ignored notice: {description}",
                                extra={"azmc_pool": self.state.spec.name})

    def phase_notice(self, name: str, phase: Phase, now: datetime, preserved: bool = False,
                     waiting_for_quota: str | None = None) -> bool:
        """A machine's phase as it told us (and why it waits for quota, None: not asked); True when it changed
        anything."""
        machine = self.state.machine(name)
        if machine is None:
            return False
        quota = "" if phase != Phase.PENDING else \
            machine.waiting_for_quota if waiting_for_quota is None else waiting_for_quota
        if quota != machine.waiting_for_quota:
            machine.waiting_for_quota = quota
            if machine.phase == phase:
                return True
        if phase == Phase.DELETED:
            self.forget(name, "deleted")
            return True
        if preserved and not machine.preserved:  # an operator sent `preserve` to the machine itself
            machine.preserved, machine.since, machine.phase = True, now, phase
            self.operation("preserve", f"{name}: preserved by its own `preserve` signal; no longer counted")
            return True
        if machine.phase == phase:
            return False
        machine.phase, machine.ready = phase, False  # min_ready counts again from here (clock.py)
        if not machine.preserved:  # a preserved machine's `since` is when it was preserved (preserve_timeout)
            machine.since = now
        if phase in (Phase.RUNNING, Phase.FAILED):
            machine.replacement = False  # a replacement that runs (or failed itself) no longer counts against the guard
        if phase == Phase.RUNNING:
            machine.ran = True
            self.state.unran_failures, self.state.unran_failed_at = 0, None  # the pool can create again
            if machine.revision == self.state.revision:
                self.state.progress_at = now  # the rollout moved
        return True
