"""The workers polling one of the installation's task queues now, as the server lists them (DescribeTaskQueue).

The server lists a poller for about five minutes after its last poll, so a worker killed a minute ago still shows.
It holds an idle poll for a minute before it answers empty, and a worker polls again at once: a worker whose last
poll began more than LIVE_WINDOW ago has stopped. Each worker's identity also names the codec keys it holds
(`with_codec_keys`), so a worker that lacks a key knows whether another one could read a payload sealed with it.
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from temporalio.api.enums.v1 import TaskQueueType, WorkerVersioningMode
from temporalio.client import Client
from temporalio.common import WorkerDeploymentVersion

from workers.task_queues import describe_task_queue

LIVE_WINDOW = timedelta(seconds=70)  # the server's long poll (60 s) and some slack
KEYS_NAMED = 300  # characters of key ids an identity names at most
_KEYS = re.compile(r" codec-keys=([A-Za-z0-9._,-]*)$")
# Both kinds of poll a worker of the machines' queue makes: one of them is always waiting while it runs.
POLL_TYPES = (TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY)


def with_codec_keys(identity: str, key_ids: list[str]) -> str:
    """A worker's identity naming the codec keys it holds (key ids are no secret: every payload names its own),
    the newest ones within KEYS_NAMED characters: the server bounds an identity's length."""
    named: list[str] = []
    for key_id in reversed(key_ids):
        if len(",".join([key_id, *named])) > KEYS_NAMED:
            break
        named.insert(0, key_id)
    return f"{identity} codec-keys={','.join(named)}" if named else identity


@dataclass(frozen=True)
class LiveWorker:
    identity: str
    version: WorkerDeploymentVersion | None  # None: an unversioned worker
    last_poll: datetime

    @property
    def codec_keys(self) -> frozenset[str]:
        found = _KEYS.search(self.identity)
        return frozenset(found.group(1).split(",")) if found else frozenset()

    @property
    def version_name(self) -> str:
        return f"{self.version.deployment_name}:{self.version.build_id}" if self.version else "unversioned"


async def live_workers(client: Client, task_queue: str) -> list[LiveWorker]:
    """One entry per worker identity whose last poll of `task_queue` (of any kind) began within LIVE_WINDOW."""
    latest: dict[str, LiveWorker] = {}
    for queue_type in POLL_TYPES:
        for poller in (await describe_task_queue(client, task_queue, queue_type)).pollers:
            polled = poller.last_access_time.ToDatetime(tzinfo=UTC)
            options = poller.deployment_options
            versioned = options.worker_versioning_mode == WorkerVersioningMode.WORKER_VERSIONING_MODE_VERSIONED
            version = WorkerDeploymentVersion(options.deployment_name, options.build_id) if versioned else None
            known = latest.get(poller.identity)
            if known is None or polled > known.last_poll:
                latest[poller.identity] = LiveWorker(poller.identity, version, polled)
    cutoff = datetime.now(UTC) - LIVE_WINDOW
    return [worker for worker in latest.values() if worker.last_poll >= cutoff]


def polling(workers: list[LiveWorker], version: WorkerDeploymentVersion | None) -> list[LiveWorker]:
    """The workers of `version` (None: unversioned ones)."""
    return [worker for worker in workers if worker.version == version]
