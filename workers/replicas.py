"""How many worker processes share the installation's ARM budgets (activities/arm_pace.py): the distinct
identities the server saw polling the machines' task queue, asked again every half minute.

The server remembers a poller for a few minutes after its last poll, so a worker that just stopped still counts
for a while: the others then send a little less than they could, never more."""

import asyncio
import logging

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.client import Client
from temporalio.service import RPCError

from activities.arm_pace import ArmPace
from workers.task_queues import describe_task_queue

REFRESH_S = 30.0
log = logging.getLogger("azmc.worker")


async def count_replicas(client: Client, task_queue: str) -> int:
    described = await describe_task_queue(client, task_queue, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)
    return max(1, len({poller.identity for poller in described.pollers}))


async def keep_replicas_counted(client: Client, task_queue: str, pace: ArmPace) -> None:
    """Runs until cancelled; a failed count keeps the last one (at worst this worker sends its old share)."""
    while True:
        try:
            counted = await count_replicas(client, task_queue)
            if counted != pace.replicas:
                log.info("ARM budgets shared by %d worker(s)", counted)
            pace.replicas = counted
        except RPCError as error:
            log.warning("could not count the workers sharing ARM's budgets: %s", error)
        await asyncio.sleep(REFRESH_S)
