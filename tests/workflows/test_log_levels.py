"""What a machine logs: at info its phases and every step's outcome, at debug also each step as it starts."""

import logging

import pytest
from temporalio.testing import WorkflowEnvironment

from models.status import Phase
from tests.workflows.fake_azure import FakeAzure
from tests.workflows.helpers import in_phase, lifecycle_worker, spec_dict, start_machine, wait_for

pytestmark = pytest.mark.shared_server  # workers on task queues of their own, stopped at the end


async def _lifecycle_lines(env: WorkflowEnvironment, caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    caplog.set_level(level, logger="temporalio.workflow")
    azure = FakeAzure()
    async with lifecycle_worker(env.client, azure.activities()) as task_queue:
        handle = await start_machine(env.client, task_queue, spec_dict())
        await wait_for(env, handle, in_phase(Phase.RUNNING))
        await handle.signal("delete", {"reason": "test"})
        await handle.result()
    return [r.getMessage() for r in caplog.records if r.name == "temporalio.workflow" and r.levelno >= level]


async def test_info_logs_phases_and_outcomes_not_steps_under_way(
        workflow_env: WorkflowEnvironment, caplog: pytest.LogCaptureFixture) -> None:
    lines = await _lifecycle_lines(workflow_env, caplog, logging.INFO)
    assert any("phase Creating -> Running" in line for line in lines), lines
    assert any("Create Successful" in line for line in lines), lines
    assert any("VerifyDeletion Successful: nothing of the machine exists in Azure" in line for line in lines), lines
    assert not [line for line in lines if " Processing: " in line]


async def test_debug_adds_each_step_as_it_starts(
        workflow_env: WorkflowEnvironment, caplog: pytest.LogCaptureFixture) -> None:
    lines = await _lifecycle_lines(workflow_env, caplog, logging.DEBUG)
    assert any("Create Processing: attempt 1: ensuring NIC" in line for line in lines), lines
