"""A pool's machine tells its pool each phase it enters (MACHINE_PHASE_SIGNAL to its parent), and asks it before
each repair step (REPAIR_WANTED_SIGNAL: the pool decides how many repairs run at once).

Push, not poll: the pool hears of a phase change when it happens, at one signal per change, whatever the
pool's size (polling hundreds of children would cost queries or reads all the time). Only a machine
started by a pool (a child workflow of `pool/...`) sends; standalone machines add nothing to their history.
The signal goes to the pool's workflow id without a run id, so it reaches the pool's current run after
the pool continued as new. Anyone may send the same signal, so the pool takes it as a notice and acts once the
machine's workflow confirms it (workflows/pool/news.py).
"""

import asyncio

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.naming import POOL_WORKFLOW_ID_PREFIX
    from models.status import Phase
    from models.temporal_api import MACHINE_PHASE_SIGNAL, PREEMPT_ANNOUNCED_SIGNAL, REPAIR_WANTED_SIGNAL



class PoolNotices:
    """The signals in flight to the pool; awaited before the machine's run ends, so the last one is sent."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._sending: list[asyncio.Future[None]] = []

    @property
    def pool_id(self) -> str | None:
        """The pool's workflow id when a pool started this machine (a standalone machine has none)."""
        parent = workflow.info().parent
        return parent.workflow_id if parent is not None and parent.workflow_id.startswith(POOL_WORKFLOW_ID_PREFIX) \
            else None

    def phase(self, phase: Phase, preserved: bool = False, waiting_for_quota: str = "") -> None:
        notice: dict[str, object] = {"name": self._name, "phase": str(phase), "preserved": preserved,
                                     "at": workflow.now().isoformat()}
        if waiting_for_quota:  # only then: older pools' notices stay as they were
            notice["waiting_for_quota"] = waiting_for_quota
        self._send(MACHINE_PHASE_SIGNAL, notice, f"phase {phase}")

    def repair_wanted(self, action: str) -> None:
        """Ask the pool to allow this repair step (workflows/pool/repairs.py); it answers with `repair_allowed`."""
        self._send(REPAIR_WANTED_SIGNAL, {"name": self._name, "action": action}, f"that it wants to {action}")

    def preempt_announced(self, event_id: str) -> None:
        """Azure announced the eviction of this Spot machine's VM: the pool starts a replacement now (plan.py)."""
        self._send(PREEMPT_ANNOUNCED_SIGNAL, {"name": self._name, "event_id": event_id}, "its preemption")

    def _send(self, signal: str, payload: dict[str, object], what: str) -> None:
        pool_id = self.pool_id
        if pool_id is None:
            return
        pool = workflow.get_external_workflow_handle(pool_id)

        async def send() -> None:
            try:
                await pool.signal(signal, payload)
            except Exception as err:  # the pool is gone (deleted): nobody to tell, the machine goes on
                workflow.logger.info(f"[machine {self._name}] could not tell pool {pool_id} {what}: {err}")

        self._sending = [task for task in self._sending if not task.done()]
        self._sending.append(asyncio.ensure_future(send()))

    async def sent(self) -> None:
        if self._sending:
            await workflow.wait(self._sending)
            self._sending = []
