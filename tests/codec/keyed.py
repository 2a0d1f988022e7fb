"""A client and a worker holding a given set of codec keys, on a test server: what one process of an
installation sees when its key file lags or leads the others'."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.audit import AuditInterceptor
from activities.driver import AzureDriver
from codec.converter import azmc_data_converter
from codec.keys import KeyRing
from workers.sandbox import workflow_runner
from workers.worker import offerings_worker, paced, worker_client
from workflows import ALL_WORKFLOWS


async def keyed_client(env: WorkflowEnvironment, keys: KeyRing) -> Client:
    return await Client.connect(env.client.service_client.config.target_host, namespace=env.client.namespace,
                                data_converter=azmc_data_converter(keys))


@asynccontextmanager
async def keyed_worker(env: WorkflowEnvironment, keys: KeyRing, driver: AzureDriver, queue: str) -> AsyncIterator[None]:
    """A fresh worker process's: nothing cached, so it replays each history it picks up."""
    client = worker_client(await keyed_client(env, keys))
    async with Worker(client, task_queue=queue, workflows=ALL_WORKFLOWS, activities=driver.activities(),
                      interceptors=[AuditInterceptor(client.data_converter)], workflow_runner=workflow_runner()), \
            offerings_worker(client, queue), paced(client, queue, driver.activities()):
        yield
