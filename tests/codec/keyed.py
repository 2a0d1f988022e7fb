"""A client and a worker holding a given set of codec keys, on a test server: what one process of an
installation sees when its key file lags or leads the others'."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from temporalio.client import Client
from temporalio.runtime import Runtime
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.audit import AuditInterceptor
from activities.driver import AzureDriver
from codec.converter import azmc_data_converter
from codec.keys import KeyRing
from workers.sandbox import workflow_runner
from workers.worker import offerings_worker, paced, worker_client, worker_identity
from workflows import ALL_WORKFLOWS


async def keyed_client(env: WorkflowEnvironment, keys: KeyRing, runtime: Runtime | None = None) -> Client:
    """`runtime`: a process of its own (the SDK refuses two workers of one task queue and kind in one runtime)."""
    return await Client.connect(env.client.service_client.config.target_host, namespace=env.client.namespace,
                                data_converter=azmc_data_converter(keys), runtime=runtime)


@asynccontextmanager
async def keyed_worker(env: WorkflowEnvironment, keys: KeyRing, driver: AzureDriver, queue: str) -> AsyncIterator[None]:
    """A fresh worker process's: nothing cached, so it replays each history it picks up."""
    client = worker_client(await keyed_client(env, keys))
    async with Worker(client, task_queue=queue, workflows=ALL_WORKFLOWS, activities=driver.activities(),
                      interceptors=[AuditInterceptor(client.data_converter)], workflow_runner=workflow_runner()), \
            offerings_worker(client, queue), paced(client, queue, driver.activities()):
        yield


@asynccontextmanager
async def workflow_side(client: Client, driver: AzureDriver, queue: str) -> AsyncIterator[None]:
    """A worker process's workflows (the machines' and the memory's, with their local activities), as
    `azmc worker` builds them; its remote activities are left to `activity_side`."""
    client = worker_client(client)
    async with Worker(client, task_queue=queue, workflows=ALL_WORKFLOWS, activities=driver.activities(),
                      no_remote_activities=True, workflow_runner=workflow_runner(), identity=worker_identity(client)), \
            offerings_worker(client, queue):
        yield


@asynccontextmanager
async def activity_side(client: Client, driver: AzureDriver, queue: str) -> AsyncIterator[None]:
    """A worker process's remote activities: the machines' queue and the paced ones."""
    client = worker_client(client)
    async with Worker(client, task_queue=queue, activities=driver.activities(), identity=worker_identity(client),
                      interceptors=[AuditInterceptor(client.data_converter)]), \
            paced(client, queue, driver.activities()):
        yield
