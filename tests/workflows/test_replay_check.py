"""The check every workflow test's worker ends with (replay_check.py) is not vacuous: a run made by other code of
the same workflow type does not replay, and the check says which."""

import uuid

import pytest
from temporalio import workflow
from temporalio.common import RawValue
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from models.temporal_api import WORKFLOW_TYPE
from tests.workflows.replay_check import replay_every_run, server_now
from workers.worker import worker_client


@workflow.defn(name=WORKFLOW_TYPE, sandboxed=False)
class _OtherCode:
    """Stands for other code: the machine's workflow type, but it only waits."""

    @workflow.run
    async def run(self, raw: RawValue) -> None:
        await workflow.sleep(1)


async def test_a_run_of_other_code_is_named_as_not_replaying(workflow_env: WorkflowEnvironment) -> None:
    client = worker_client(workflow_env.client)
    task_queue, since = f"azmc-test-{uuid.uuid4()}", await server_now(client)
    async with Worker(client, task_queue=task_queue, workflows=[_OtherCode]):
        handle = await client.start_workflow(WORKFLOW_TYPE, {}, id=f"machine/other-{uuid.uuid4()}",
                                             task_queue=task_queue)
        await handle.result()
    with pytest.raises(AssertionError, match=handle.id):
        await replay_every_run(client, task_queue, since)
