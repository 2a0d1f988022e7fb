"""Workflow-test fixtures: the real driver against the emulator, under a time-skipping Temporal server."""

from collections.abc import AsyncIterator

import pytest

from activities.config import AzureConfig
from activities.driver import AzureDriver
from tests.support.emulator import EmulatorHandle
from tests.workflows.helpers import lifecycle_worker, time_skipping_env
from tests.workflows.stack import Stack

TOKEN = "workflow-test-token"
INSTALLATION = "workflow-tests"  # the installation id the workflow tests run as


@pytest.fixture
async def stack(emulator: EmulatorHandle) -> AsyncIterator[Stack]:
    config = AzureConfig(installation_id=INSTALLATION, subscription_id=emulator.subscription_id,
                         endpoint=emulator.url, emulator_token=TOKEN)
    driver = await AzureDriver.open(config)
    try:
        async with time_skipping_env() as env, lifecycle_worker(env.client, driver.activities()) as task_queue:
            yield Stack(env, task_queue, emulator, driver)
    finally:
        await driver.close()
