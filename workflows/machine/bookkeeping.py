"""The machine a workflow keeps: its state (LifecycleState) and how it shows - the status query, search
attributes, current details (drawn by details.py) and log lines - kept in step.

Every flow takes the `Machine`: it reads and changes `machine.state` and reports through the methods
here. Deterministic bookkeeping only; no Azure calls.
"""

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.inventory import Inventory, VmState
    from models.reserved_room import ReservedRoom
    from models.search_attributes import AZMC_MACHINE, AZMC_PHASE, AZMC_POOL, AZMC_RESOURCE_GROUP
    from models.status import HealthSignal, LastOperation, OperationState, Phase, Stage, StalledStep

from workflows.machine.details import render_details
from workflows.machine.healing import Healing
from workflows.machine.operations import phase_entered
from workflows.machine.pool_notice import PoolNotices
from workflows.machine.state import LifecycleState
from workflows.traces import Operations

RECENT_OPERATIONS = 20
_MAX_ERROR_CHARS = 500  # keeps Azure's long messages from bloating status and details


class MachineLog:
    """workflow.logger with the machine on every line (in the text and as `extra` for structured logs)."""

    def __init__(self, resource_group: str, name: str, trace: Operations | None = None) -> None:
        self._prefix = f"[machine {resource_group}/{name}] "
        self._extra = {"azmc_machine": name, "azmc_resource_group": resource_group}
        self._trace = trace  # a line said during an operation carries its trace and span ids

    def _fields(self) -> dict[str, str]:
        return {**self._extra, **self._trace.ids()} if self._trace is not None else self._extra

    def debug(self, message: str) -> None:
        workflow.logger.debug(self._prefix + message, extra=self._fields())

    def info(self, message: str) -> None:
        workflow.logger.info(self._prefix + message, extra=self._fields())

    def warning(self, message: str) -> None:
        workflow.logger.warning(self._prefix + message, extra=self._fields())


class Machine:
    """One machine as its workflow holds it: `state` (carried through continue-as-new) and its visible side.

    Changes that people must see go through the methods (phase, operation, inventory, stalled steps), so
    the status query, search attributes, current details and log lines never disagree.
    """

    def __init__(self, state: LifecycleState) -> None:
        self.state = state
        # Whether the size of the offering last claimed supports accelerated networking (None: not known), as
        # the shared memory answered (workflows/offerings/skus.py): not carried, every attempt claims first.
        self.size_accelerated: bool | None = None
        # The spec's capacity reservation group as the last ordering read it (fallback.py), to say an offering's
        # reserved room in the attempt's description; None: no group, or not read.
        self.reserved_room: ReservedRoom | None = None
        # Two facts of this run: the phase its search attribute shows (set by the starter, or upserted), and
        # the last phase (and quota wait) its pool was told (every run tells its first one, upserted or not).
        self._shown_phase: str | None = None
        self._told: tuple[Phase, str] | None = None
        # A pool's machine tells its pool every phase it enters (pool_notice.py); others tell nobody.
        self.pool_notices = PoolNotices(state.spec.name)
        # The health timeout and the repair ladder: where they stand and the timers of this run (healing.py).
        self.healing = Healing(state)
        # Its operations as traces (operations.py), opened and closed by its phases.
        subject = {"azmc.machine": f"{state.spec.resource_group}/{state.spec.name}"}
        self.trace = Operations("machine", {**subject, **({"azmc.pool": state.spec.pool} if state.spec.pool else {})})
        self.log = MachineLog(state.spec.resource_group, state.spec.name, self.trace)

    def health_read(self, signals: list[HealthSignal]) -> None:
        status = self.state.status
        status.health, status.health_read_at, status.health_stale = signals, workflow.now(), ""
        self.refresh()

    def health_unread(self, why: str) -> None:
        """A check could not read the signals (`why`: no VM, the VM unreadable, stopped, ...): those listed stay as
        last read, marked not current, so a Ready agent of a VM that is gone is never shown as today's."""
        status = self.state.status
        status.health_stale = why if status.health else ""
        self.refresh()

    @property
    def phase(self) -> Phase:
        return self.state.status.phase

    def announce(self) -> None:
        """Static search attributes once per run, then the phase: only those the run does not have yet
        (`azmc apply` sets all at start, and a continued run inherits them)."""
        spec = self.state.spec
        updates = [AZMC_MACHINE.value_set(spec.name), AZMC_RESOURCE_GROUP.value_set(spec.resource_group)]
        if spec.pool:
            updates.append(AZMC_POOL.value_set(spec.pool))
        have = workflow.info().typed_search_attributes
        updates = [update for update in updates if have.get(update.key) != update.value]
        self._shown_phase = have.get(AZMC_PHASE)
        if updates:
            workflow.upsert_search_attributes(updates)
        self.set_phase(self.phase)

    def set_phase(self, phase: Phase) -> None:
        if phase != self.state.status.phase:
            self.log.info(f"phase {self.state.status.phase} -> {phase}")
        self.state.status.phase = phase
        phase_entered(self.trace, phase, self.state.status.last_error, self.state.creation_started_at)
        if phase != Phase.PENDING:
            self.state.status.waiting_for_quota = ""  # only a Pending machine waits for quota
        told = (phase, self.state.status.waiting_for_quota)
        if self._told != told:
            # Upsert only on change: a workflow task with an upsert is a visibility write.
            if self._shown_phase != phase:
                workflow.upsert_search_attributes([AZMC_PHASE.value_set(phase)])
                self._shown_phase = phase
            self._told = told
            self.tell_pool()
        self.refresh()

    def wait_for_quota(self, why: str) -> None:
        """Pending, as nothing was tried: the quota reading leaves no offering room. Its pool hears why (once per
        reason), to count the machines that wait so."""
        self.state.status.waiting_for_quota = why
        self.set_phase(Phase.PENDING)

    def tell_pool(self) -> None:
        """A pool's machine tells its pool its phase, whether it is preserved and why it waits for quota (nothing
        for other machines)."""
        status = self.state.status
        self.pool_notices.phase(self.phase, status.preserved, status.waiting_for_quota)

    def operation(
        self, stage: Stage, state: OperationState, description: str, error: str = "",
        retry_in: timedelta | None = None,
    ) -> None:
        status = self.state.status
        now = workflow.now()
        entry = LastOperation(stage=stage, state=state, description=description, updated_at=now)
        status.last_operation = entry
        status.recent_operations = [*status.recent_operations, entry][-RECENT_OPERATIONS:]
        if error:
            status.last_error = error[:_MAX_ERROR_CHARS]
        elif state == OperationState.SUCCESSFUL and stage != Stage.COMPENSATE:
            status.last_error = ""  # an undo step's success is not the machine's: the failure undone stays
        status.next_retry_at = now + retry_in if retry_in is not None else None
        if status.stalled:
            # Steps run side by side (deletion): one's success must not hide another's wait.
            status.next_retry_at = min((s.next_retry_at for s in status.stalled if s.next_retry_at),
                                       default=status.next_retry_at)
            if not error:
                status.last_error = status.stalled[0].error
        line = f"{stage} {state}: {description}"
        if error:
            self.log.warning(f"{line} ({status.last_error})")
        elif state == OperationState.PROCESSING:
            self.log.debug(line)  # a step under way: the status and the UI show it; the log keeps outcomes
        else:
            self.log.info(line)
        self.refresh()

    def inventory(self, inventory: Inventory) -> None:
        # A VM GET names the data disks but not their uniqueIds: keep the ones last read.
        self.state.status.inventory = inventory.with_unique_ids(self.state.status.inventory.unique_ids())
        self.state.status.inventory_at = workflow.now()
        if not inventory.has_vm:
            self.health_unread("no VM")
        self.refresh()

    def gone(self, name: str) -> None:
        """Azure said the NIC or disk `name` is gone (deleted, or not found): the status stops listing it."""
        last, gone = self.state.status.inventory, name.lower()
        self.state.status.inventory = last.model_copy(update={
            "nic_names": [nic for nic in last.nic_names if nic.lower() != gone],
            "public_ip_names": [pip for pip in last.public_ip_names if pip.lower() != gone],
            "disk_names": [disk for disk in last.disk_names if disk.lower() != gone],
            "data_disks": [disk for disk in last.data_disks if disk.name.lower() != gone]})
        self.state.status.inventory_at = workflow.now()
        self.refresh()

    def vm_observed(self, seen: Inventory) -> None:
        """A VM-only read (find_vm): it replaces what we know of the VM; without a VM it says nothing
        about the NIC and OS disk (they stay as last read in full), only about the data disks it read."""
        if seen.has_vm or seen.nic_names:
            self.inventory(seen)
            return
        last = self.state.status.inventory
        data_names = {name.lower() for name in self.state.spec.all_disk_names()[1:]}
        others = [name for name in last.disk_names if name.lower() not in data_names]
        self.inventory(last.model_copy(update={
            "provider_id": "", "node_name": "", "vm_state": VmState(),
            "disk_names": others + [name for name in seen.disk_names if name not in others],
            "data_disks": seen.data_disks}))

    def stalled(self, stage: Stage, description: str, error: str, failures: int, retry_in: timedelta) -> None:
        """A step failed and waits to retry; shown (with the others waiting) until it succeeds."""
        step = StalledStep(stage=stage, description=description, error=error[:_MAX_ERROR_CHARS],
                           failures=failures, next_retry_at=workflow.now() + retry_in)
        status = self.state.status
        status.stalled = [s for s in status.stalled if s.description != description] + [step]

    def unstalled(self, description: str) -> None:
        status = self.state.status
        status.stalled = [s for s in status.stalled if s.description != description]

    def clear_stalled(self) -> None:
        self.state.status.stalled = []

    def refresh(self) -> None:
        workflow.set_current_details(render_details(self.state, workflow.now()))
