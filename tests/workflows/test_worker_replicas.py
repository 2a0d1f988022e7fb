"""Each worker sends its share of ARM's budgets: it counts the workers polling the machines' task queue
(workers/replicas.py), so two replicas of an installation together send what one would alone."""

import asyncio
import uuid

from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from workers.replicas import count_replicas
from workers.sandbox import workflow_runner
from workflows.registry import ALL_WORKFLOWS


async def replica(env: WorkflowEnvironment, queue: str, name: str) -> Worker:
    client = await Client.connect(env.client.service_client.config.target_host, identity=name,
                                  data_converter=env.client.data_converter)
    return Worker(client, task_queue=queue, workflows=ALL_WORKFLOWS, workflow_runner=workflow_runner())


async def test_the_workers_polling_the_task_queue_are_counted(dev_env: WorkflowEnvironment) -> None:
    queue = f"replicas-{uuid.uuid4()}"
    assert await count_replicas(dev_env.client, queue) == 1  # nobody polls yet: a worker counts itself
    async with await replica(dev_env, queue, "worker-a"), await replica(dev_env, queue, "worker-b"):
        counted = 0
        for _ in range(50):  # the server lists a poller once its first poll arrived
            counted = await count_replicas(dev_env.client, queue)
            if counted == 2:
                break
            await asyncio.sleep(0.1)
        assert counted == 2
