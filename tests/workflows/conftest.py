"""Workflow-test fixtures: the real driver against the emulator, on a time-skipping Temporal server, or on a
dev server where a scenario needs what only a real server does (visibility queries, timers cancelled as they
fire)."""

from collections.abc import AsyncIterator

import pytest
from temporalio.testing import WorkflowEnvironment

from cli.stack import ONE_PARTITION_FLAGS
from models.search_attributes import ALL_KEYS
from tests.support.emulator import EmulatorHandle
from tests.workflows.helpers import DEV_SERVER, TEST_CONVERTER, workflow_stack
from tests.workflows.stack import Stack

TOKEN = "workflow-test-token"
INSTALLATION = "workflow-tests"  # the installation id the workflow tests run as


@pytest.fixture
async def stack(workflow_env: WorkflowEnvironment, emulator: EmulatorHandle) -> AsyncIterator[Stack]:
    async with workflow_stack(workflow_env, emulator, INSTALLATION, TOKEN) as running:
        yield running


@pytest.fixture
async def dev_env() -> AsyncIterator[WorkflowEnvironment]:
    """A dev server of its own: time passes as it does in production, so waits are real seconds."""
    env = await WorkflowEnvironment.start_local(dev_server_existing_path=DEV_SERVER, data_converter=TEST_CONVERTER,
                                                search_attributes=list(ALL_KEYS), ui=False,
                                                dev_server_extra_args=ONE_PARTITION_FLAGS)
    async with env:
        yield env


@pytest.fixture
async def dev_stack(dev_env: WorkflowEnvironment, emulator: EmulatorHandle) -> AsyncIterator[Stack]:
    async with workflow_stack(dev_env, emulator, INSTALLATION, TOKEN) as running:
        yield running
