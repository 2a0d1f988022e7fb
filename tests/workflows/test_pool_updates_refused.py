"""A pool refuses bad updates synchronously with a clear error (validators: nothing enters history), and a
bad start input fails the workflow at once, naming what is wrong."""

from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowFailureError, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from models.naming import pool_workflow_id
from models.pool import PoolStatus
from tests.workflows.helpers import RESOURCE_GROUP
from tests.workflows.pools import pool_dict, pool_status, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack
from workflows.api import POOL_WORKFLOW_TYPE, SCALE_UPDATE, SET_TEMPLATE_UPDATE


async def _refusal(handle: Any, update: str, *args: Any) -> str:
    with pytest.raises(WorkflowUpdateFailedError) as caught:
        await handle.execute_update(update, *args)
    return str(caught.value.cause)


async def test_bad_updates_are_refused_with_clear_errors(stack: Stack) -> None:
    env, subnet = stack.env, stack.emulator.subnet_id
    handle = await start_pool(env.client, stack.task_queue, pool_dict(subnet, 1))
    before = await wait_pool(env, handle, settled(1))
    events = len([e async for e in handle.fetch_history_events()])

    assert "replicas: Input should be greater than or equal to 0" in await _refusal(
        handle, SCALE_UPDATE, {"replicas": -1})
    assert "replicas: Input should be a valid integer" in await _refusal(handle, SCALE_UPDATE, {"replicas": "many"})
    assert "count: unknown field" in await _refusal(handle, SCALE_UPDATE, {"replicas": 1, "count": 2})
    assert "replicas: Input should be less than or equal to 1000" in await _refusal(
        handle, SCALE_UPDATE, {"replicas": 5000})
    assert "expected a JSON object" in await _refusal(handle, SCALE_UPDATE, 3)
    bad_key = template_dict(subnet, ssh_public_key="not a key")
    assert "template.ssh_public_key: an OpenSSH public key" in await _refusal(
        handle, SET_TEMPLATE_UPDATE, {"template": bad_key})
    named = {**template_dict(subnet), "name": "vm9"}
    assert "name must not be set in a template" in await _refusal(handle, SET_TEMPLATE_UPDATE, {"template": named})
    # Nothing of it reached the history but workflow tasks: validators refuse before an update is accepted.
    added = {e.event_type for e in [e async for e in handle.fetch_history_events()][events:]}
    assert added <= {EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
                     EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED}, added
    assert (await pool_status(handle)).target_revision == before.target_revision

    await handle.signal("delete")
    await handle.result()
    # A deleted pool accepts no more updates (it completed).
    with pytest.raises(Exception):  # noqa: B017 - completed workflows refuse updates with an RPC error
        await handle.execute_update(SCALE_UPDATE, {"replicas": 2}, result_type=PoolStatus)


async def test_bad_start_input_fails_the_pool_at_once(stack: Stack) -> None:
    web = pool_workflow_id(RESOURCE_GROUP, "web")
    cases: list[tuple[Any, str, str]] = [
        ({"name": "web", "resource_group": RESOURCE_GROUP, "replicas": -2, "template": {}}, web,
         "invalid PoolSpec: replicas: Input should be greater than or equal"),
        ("not json at all", web, "expected a JSON object, got a string"),
        (None, web, "expected a JSON object, got NoneType"),
        (pool_dict(stack.emulator.subnet_id, 1), pool_workflow_id(RESOURCE_GROUP, "other"),
         "is managed only by workflow 'pool/azmc-demo/web'"),
    ]
    for spec, workflow_id, expected in cases:
        handle = await stack.env.client.start_workflow(POOL_WORKFLOW_TYPE, spec, id=workflow_id,
                                                       task_queue=stack.task_queue)
        with pytest.raises(WorkflowFailureError) as caught:
            await handle.result()
        cause = caught.value.cause
        assert isinstance(cause, ApplicationError) and cause.type == "InvalidSpec"
        assert expected in str(cause), str(cause)
    assert stack.emulator.resources("virtualMachines") == []
