"""A 429 from Azure slows the shared pace, not only the worker that met it: the budget's task queue gets a
server-side rate limit of half its pace (Temporal's task queue config, which every worker's polls obey over the
rate they say themselves), lifted once QUIET_S pass without another. Every worker lifts a brake it finds quiet,
so a worker that stops never leaves one on."""

import asyncio
import logging
import time
from collections.abc import Mapping
from datetime import UTC, datetime

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import RateLimit
from temporalio.api.workflowservice.v1 import UpdateTaskQueueConfigRequest
from temporalio.client import Client
from temporalio.service import RPCError

from models.pace import Budget, budget_task_queue
from workers.task_queues import describe_task_queue

BRAKE = "azmc brake"  # how a brake's reason starts: the only limits azmc lifts
QUIET_S = 60.0
CHECK_S = 15.0
log = logging.getLogger("azmc.worker")


class PaceBrake:
    def __init__(self, client: Client, task_queue: str, paces: Mapping[Budget, float], quiet_s: float = QUIET_S):
        self._client = client
        self._paces = {budget_task_queue(task_queue, budget): pace for budget, pace in paces.items()}
        self._quiet_s = quiet_s
        self._braked_at: dict[str, float] = {}
        self._pending: set[asyncio.Task[None]] = set()

    def queue_throttled(self, task_queue: str) -> None:
        """An activity of `task_queue` met a 429: brake the queue (once per CHECK_S per worker: the 429s of one
        burst are one event)."""
        now = time.monotonic()
        if task_queue not in self._paces or now - self._braked_at.get(task_queue, -CHECK_S) < CHECK_S:
            return
        self._braked_at[task_queue] = now
        task = asyncio.get_running_loop().create_task(self.brake(task_queue))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def brake(self, task_queue: str) -> None:
        rate = self._paces[task_queue] / 2
        reason = f"{BRAKE}: Azure answered 429; half the pace until {self._quiet_s:.0f} s pass without one"
        try:
            await self._set(task_queue, rate, reason)
            log.warning("%s: Azure answered 429, the installation's pace halved to %.2f/s", task_queue, rate)
        except RPCError as error:  # an older server without task queue config: this worker's hold still applies
            log.warning("%s: could not slow the shared pace after a 429: %s", task_queue, error)

    async def release_quiet_brakes(self) -> None:
        for task_queue in self._paces:
            config = (await describe_task_queue(self._client, task_queue, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
                                                report_config=True)).config.queue_rate_limit
            if not config.HasField("rate_limit") or not config.metadata.reason.startswith(BRAKE):
                continue
            age = datetime.now(UTC) - config.metadata.update_time.ToDatetime(tzinfo=UTC)
            if age.total_seconds() >= self._quiet_s:
                await self._set(task_queue, None, f"azmc: no 429 for {self._quiet_s:.0f} s, back to the pace")
                log.info("%s: back to the installation's pace", task_queue)

    async def keep_releasing(self) -> None:
        """Runs until cancelled."""
        while True:
            await asyncio.sleep(CHECK_S)
            try:
                await self.release_quiet_brakes()
            except RPCError as error:
                log.warning("could not check the pace brakes: %s", error)

    async def _set(self, task_queue: str, rate: float | None, reason: str) -> None:
        update = UpdateTaskQueueConfigRequest.RateLimitUpdate(reason=reason)
        if rate is not None:
            update.rate_limit.CopyFrom(RateLimit(requests_per_second=rate))
        await self._client.workflow_service.update_task_queue_config(UpdateTaskQueueConfigRequest(
            namespace=self._client.namespace, identity=self._client.identity, task_queue=task_queue,
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, update_queue_rate_limit=update))
