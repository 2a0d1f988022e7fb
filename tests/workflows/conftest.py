"""Workflow-test fixtures: the real driver against the emulator, on the shared time-skipping Temporal server."""

from collections.abc import AsyncIterator

import pytest
from temporalio.testing import WorkflowEnvironment

from tests.support.emulator import EmulatorHandle
from tests.workflows.helpers import workflow_stack
from tests.workflows.stack import Stack

TOKEN = "workflow-test-token"
INSTALLATION = "workflow-tests"  # the installation id the workflow tests run as


@pytest.fixture
async def stack(workflow_env: WorkflowEnvironment, emulator: EmulatorHandle) -> AsyncIterator[Stack]:
    async with workflow_stack(workflow_env, emulator, INSTALLATION, TOKEN) as running:
        yield running
