"""A pool's machine tells its pool each phase it enters (MACHINE_PHASE_SIGNAL to its parent).

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

from workflows.api import MACHINE_PHASE_SIGNAL


class PoolNotices:
    """The signals in flight to the pool; awaited before the machine's run ends, so the last one is sent."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._sending: list[asyncio.Future[None]] = []

    def phase(self, phase: Phase, preserved: bool = False) -> None:
        parent = workflow.info().parent
        if parent is None or not parent.workflow_id.startswith(POOL_WORKFLOW_ID_PREFIX):
            return
        pool = workflow.get_external_workflow_handle(parent.workflow_id)
        notice = {"name": self._name, "phase": str(phase), "preserved": preserved, "at": workflow.now().isoformat()}

        async def send() -> None:
            try:
                await pool.signal(MACHINE_PHASE_SIGNAL, notice)
            except Exception as err:  # the pool is gone (deleted): nobody to tell, the machine goes on
                workflow.logger.info(f"[machine {self._name}] could not tell pool {parent.workflow_id} "
                                     f"phase {phase}: {err}")

        self._sending = [task for task in self._sending if not task.done()]
        self._sending.append(asyncio.ensure_future(send()))

    async def sent(self) -> None:
        if self._sending:
            await workflow.wait(self._sending)
            self._sending = []
