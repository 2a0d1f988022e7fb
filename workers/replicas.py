"""What a worker knows of the installation's other workers, asked every REFRESH_S (workers/live_workers.py): how
many worker processes share the ARM budgets (activities/arm_pace.py), and which codec keys the others hold
(codec/holders.py).

A worker that stopped leaves the count once its last poll is LIVE_WINDOW old (70 s): the others then send a little
less than they could meanwhile, never more."""

import asyncio
import logging

from temporalio.client import Client
from temporalio.common import WorkerDeploymentVersion
from temporalio.service import RPCError

from activities.arm_pace import ArmPace
from codec.holders import KeyHolders
from workers.live_workers import LiveWorker, live_workers, polling

REFRESH_S = 10.0
log = logging.getLogger("azmc.worker")


def count_of(workers: list[LiveWorker]) -> int:
    return max(1, len(workers))  # a worker counts itself before its first poll shows


async def count_replicas(client: Client, task_queue: str) -> int:
    return count_of(await live_workers(client, task_queue))


async def keep_replicas_counted(client: Client, task_queue: str, pace: ArmPace | None,
                                holders: KeyHolders | None = None, own_identity: str = "",
                                own_version: WorkerDeploymentVersion | None = None) -> None:
    """Runs until cancelled; a failed count keeps the last one (at worst this worker sends its old share).
    `holders` learns the keys of the other workers of this worker's version (`own_version`, None: unversioned):
    only they take the tasks it leaves (a pinned run's tasks go to its version alone)."""
    while True:
        try:
            workers = await live_workers(client, task_queue)
            counted = count_of(workers)
            if pace is not None and counted != pace.replicas:
                log.info("ARM budgets shared by %d worker(s)", counted)
                pace.replicas = counted
            if holders is not None:
                holders.update(frozenset().union(*(w.codec_keys for w in polling(workers, own_version)
                                                   if w.identity != own_identity)))
        except RPCError as error:
            log.warning("could not count the workers sharing ARM's budgets: %s", error)
        await asyncio.sleep(REFRESH_S)
