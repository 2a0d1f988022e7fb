"""A client and a worker holding a given set of codec keys, on a test server: what one process of an
installation sees when its key file lags or leads the others'."""

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from temporalio.client import Client
from temporalio.runtime import Runtime
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.audit import AuditInterceptor
from activities.config import AzureConfig
from activities.driver import AzureDriver
from cli.stack import ONE_PARTITION_FLAGS
from codec.converter import azmc_data_converter
from codec.keys import KeyRing
from models.search_attributes import ALL_KEYS
from models.spec import MachineSpec
from tests.support.emulator import EmulatorHandle
from tests.workflows.helpers import spec_dict
from workers.sandbox import workflow_runner
from workers.worker import offerings_worker, paced, worker_client, worker_identity
from workflows.registry import ALL_WORKFLOWS


async def keyed_client(env: WorkflowEnvironment, keys: KeyRing, runtime: Runtime | None = None) -> Client:
    """`runtime`: a process of its own (the SDK refuses two workers of one task queue and kind in one runtime)."""
    return await Client.connect(env.client.service_client.config.target_host, namespace=env.client.namespace,
                                data_converter=azmc_data_converter(keys), runtime=runtime)


@dataclass
class RotationStack:
    env: WorkflowEnvironment
    driver: AzureDriver
    queue: str
    spec: MachineSpec


@asynccontextmanager
async def rotation_stack(emulator: EmulatorHandle) -> AsyncIterator[RotationStack]:
    """A dev server, the real driver against the emulator, a task queue of its own and a machine to apply."""
    driver = await AzureDriver.open(AzureConfig(installation_id="rotation", subscription_id=emulator.subscription_id,
                                                endpoint=emulator.url, emulator_token="rotation"))
    try:
        env = await WorkflowEnvironment.start_local(
            dev_server_extra_args=ONE_PARTITION_FLAGS, dev_server_existing_path=".venv/bin/temporal",
            search_attributes=list(ALL_KEYS), ui=False)
        async with env:
            yield RotationStack(env, driver, f"rotation-{uuid.uuid4()}",
                                MachineSpec.model_validate(spec_dict("vm1", subnet_id=emulator.subnet_id)))
    finally:
        await driver.close()


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
