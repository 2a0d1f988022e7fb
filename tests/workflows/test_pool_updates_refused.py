"""A pool refuses bad updates synchronously with a clear error (validators: nothing enters history), and a
bad start input fails the workflow at once, naming what is wrong."""

from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowFailureError, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from models.naming import pool_workflow_id
from models.pool import PoolStatus
from models.temporal_api import POOL_WORKFLOW_TYPE, SCALE_UPDATE, SET_SETTINGS_UPDATE, SET_TEMPLATE_UPDATE
from tests.workflows.helpers import RESOURCE_GROUP
from tests.workflows.pools import pool_dict, pool_status, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack


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
    # Strict types: the number the update documents, never a string that looks like one.
    assert "replicas: Input should be a valid integer" in await _refusal(handle, SCALE_UPDATE, {"replicas": "5"})
    assert "replicas: Input should be a valid integer" in await _refusal(handle, SCALE_UPDATE, {"replicas": True})
    assert "max_replacements: Input should be a valid integer" in await _refusal(
        handle, SET_SETTINGS_UPDATE, {"max_replacements": "3"})
    assert "strategy.max_surge: Input should be a valid integer" in await _refusal(
        handle, SET_SETTINGS_UPDATE, {"strategy": {"max_surge": "2"}})
    assert "max_surge and max_unavailable cannot both be 0" in await _refusal(
        handle, SET_SETTINGS_UPDATE, {"strategy": {"max_surge": 0}})
    assert "replicas: unknown field" in await _refusal(handle, SET_SETTINGS_UPDATE, {"replicas": 3})
    assert "expected at least one of strategy" in await _refusal(handle, SET_SETTINGS_UPDATE, {})
    assert "min_ready: -1 is below the minimum" in await _refusal(handle, SET_SETTINGS_UPDATE, {"min_ready": -1})
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


async def test_set_settings_changes_every_setting_but_template_and_replicas(stack: Stack) -> None:
    env, subnet = stack.env, stack.emulator.subnet_id
    handle = await start_pool(env.client, stack.task_queue, pool_dict(subnet, 1))
    before = await wait_pool(env, handle, settled(1))
    assert before.settings == {"strategy": {"max_surge": 1, "max_unavailable": 0}, "max_replacements": 1,
                               "max_unhealthy": "40%", "preserve_failed": 0, "preserve_timeout": "96h",
                               "min_ready": "0s"}
    after: PoolStatus = await handle.execute_update(
        SET_SETTINGS_UPDATE, {"strategy": {"max_surge": 3}, "max_replacements": 4, "max_unhealthy": 3,
                              "preserve_failed": 2, "preserve_timeout": "2h", "min_ready": "90s"},
        result_type=PoolStatus)
    assert after.settings == {"strategy": {"max_surge": 3, "max_unavailable": 0}, "max_replacements": 4,
                              "max_unhealthy": 3, "preserve_failed": 2, "preserve_timeout": "2h", "min_ready": "90s"}
    (said,) = [op.description for op in after.recent_operations if op.kind == "settings"]
    assert said == ("strategy.max_surge 1 -> 3, max_replacements 1 -> 4, max_unhealthy 40% -> 3, "
                    "preserve_failed 0 -> 2, preserve_timeout 96h -> 2h, min_ready 0s -> 90s"), said
    assert (after.replicas, after.target_revision) == (before.replicas, before.target_revision)
    await handle.signal("delete")
    await handle.result()


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
