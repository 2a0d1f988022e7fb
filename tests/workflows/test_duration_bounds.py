"""A workflow started (the SDK, raw JSON) or updated with a duration out of its bounds refuses it at once,
naming the field and the bounds: the machine, the pool and the fleet sweep fail without a failed workflow
task or an Azure call, and the updates `update_spec` and `set_template` are refused by their validators."""

import asyncio
import uuid
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowExecutionStatus, WorkflowFailureError, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from models.durations import BOUNDS
from models.errors import ErrorType
from models.status import Phase
from models.sweep import SWEEP_WORKFLOW
from models.temporal_api import SET_TEMPLATE_UPDATE, UPDATE_SPEC
from tests.support.durations import extreme_durations
from tests.workflows.helpers import in_phase, spec_dict, start_machine, status_of, wait_for
from tests.workflows.pools import pool_dict, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack

CREATION, INTERVAL = BOUNDS["timeouts.creation"].range, BOUNDS["timeouts.health_check_interval"].range
_MACHINE_CASES: list[tuple[dict[str, Any], str]] = [
    ({"creation": "99999999999d"}, f"timeouts.creation: '99999999999d' is above the maximum: give a duration "
                                   f"{CREATION}"),
    ({"creation": "3000000d"}, f"timeouts.creation: '3000000d' is above the maximum: give a duration {CREATION}"),
    ({"health": "P99999999D"}, "timeouts.health: 'P99999999D' is above the maximum"),
    ({"health_check_interval": "1ms"}, f"timeouts.health_check_interval: '1ms' is below the minimum: give a "
                                       f"duration {INTERVAL}"),
    ({"drain": True}, "timeouts.drain: True is not a duration"),
]


async def _settled(stack: Stack, handle: WorkflowHandle) -> list[EventType.ValueType]:
    """The history once the workflow closed, a workflow task failed, or an Azure call was made (the input was
    taken), whichever comes first."""
    for _ in range(600):
        events = [event.event_type async for event in handle.fetch_history_events()]
        closed = (await handle.describe()).status != WorkflowExecutionStatus.RUNNING
        if closed or EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED in events or stack.emulator.requests()["total"]:
            return events
        await asyncio.sleep(0.1)
    raise AssertionError("the workflow neither closed, nor failed a task, nor called Azure")


async def _fails_at_once_naming(stack: Stack, handle: WorkflowHandle, named: str) -> None:
    events = await _settled(stack, handle)
    assert EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in events
    assert stack.emulator.requests()["total"] == 0
    with pytest.raises(WorkflowFailureError) as failure:
        await handle.result()
    cause = failure.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == ErrorType.INVALID_SPEC and cause.non_retryable
    assert named in cause.message, cause.message


@pytest.mark.parametrize(("timeouts", "named"), _MACHINE_CASES, ids=[n.split(":")[0] + str(i)
                                                                     for i, (_, n) in enumerate(_MACHINE_CASES)])
async def test_a_machine_started_with_a_duration_out_of_bounds_fails_at_once(
    stack: Stack, timeouts: dict[str, Any], named: str,
) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts=timeouts)
    await _fails_at_once_naming(stack, await start_machine(stack.env.client, stack.task_queue, spec), named)


_POOL_CASES: list[tuple[dict[str, Any], str]] = [
    ({"min_ready": "3000000d"}, f"min_ready: '3000000d' is above the maximum: give a duration "
                                f"{BOUNDS['min_ready'].range}"),
    ({"preserve_timeout": "99999999999d"}, "preserve_timeout: '99999999999d' is above the maximum"),
    ({"template_timeouts": {"creation": "3000000d"}}, f"template.timeouts.creation: '3000000d' is above the maximum: "
                                                      f"give a duration {CREATION}"),
    ({"template_timeouts": {"health_check_interval": "1ms"}}, "template.timeouts.health_check_interval: '1ms' is "
                                                               "below the minimum"),
]


@pytest.mark.parametrize(("overrides", "named"), _POOL_CASES, ids=[n.split(":")[0] for _, n in _POOL_CASES])
async def test_a_pool_started_with_a_duration_out_of_bounds_fails_at_once(
    stack: Stack, overrides: dict[str, Any], named: str,
) -> None:
    subnet = stack.emulator.subnet_id
    timeouts = overrides.pop("template_timeouts", None)
    if timeouts:
        overrides["template"] = template_dict(subnet, timeouts=timeouts)
    handle = await start_pool(stack.env.client, stack.task_queue, pool_dict(subnet, 1, **overrides))
    await _fails_at_once_naming(stack, handle, named)


@pytest.mark.parametrize(("value", "named"), [
    ("99999999999d", "orphan_grace: '99999999999d' is above the maximum: give a duration from 0s to 30d"),
    ("-5m", "orphan_grace: '-5m' is below the minimum"),
    ([], "orphan_grace: [] is not a duration"),
])
async def test_a_fleet_sweep_started_with_a_duration_out_of_bounds_fails_at_once(
    stack: Stack, value: Any, named: str,
) -> None:
    handle = await stack.env.client.start_workflow(SWEEP_WORKFLOW, {"orphan_grace": value},
                                                   id=f"azmc-fleet-sweep-{uuid.uuid4()}", task_queue=stack.task_queue)
    await _fails_at_once_naming(stack, handle, named)


async def _refusal(handle: WorkflowHandle, update: str, arg: Any) -> str:
    with pytest.raises(WorkflowUpdateFailedError) as caught:
        await handle.execute_update(update, arg)
    return str(caught.value.cause)


async def test_updates_with_a_duration_out_of_bounds_are_refused_and_the_workflows_go_on(stack: Stack) -> None:
    env, subnet = stack.env, stack.emulator.subnet_id
    machine = await start_machine(env.client, stack.task_queue, spec_dict(subnet_id=subnet))
    await wait_for(env, machine, in_phase(Phase.RUNNING))
    for timeouts, named in _MACHINE_CASES:
        refused = await _refusal(machine, UPDATE_SPEC, spec_dict(subnet_id=subnet, timeouts=timeouts))
        assert named in refused, refused
    assert (await status_of(machine)).phase == Phase.RUNNING

    pool = await start_pool(env.client, stack.task_queue, pool_dict(subnet, 1))
    before = await wait_pool(env, pool, settled(1))
    for timeouts, named in _MACHINE_CASES:
        refused = await _refusal(pool, SET_TEMPLATE_UPDATE, {"template": template_dict(subnet, timeouts=timeouts)})
        assert f"template.{named}" in refused, refused
    after = await wait_pool(env, pool, settled(1))
    assert after.target_revision == before.target_revision

    await machine.signal("delete")
    await pool.signal("delete")
    await machine.result()
    await pool.result()


async def test_every_extreme_duration_fails_a_machine_at_once_and_is_refused_by_both_updates(stack: Stack) -> None:
    """The fuzz of tests/support/durations.py through the SDK: each timeout of a machine's start input, of
    `update_spec` and of `set_template`."""
    env, subnet = stack.env, stack.emulator.subnet_id
    timeouts = [key for key in BOUNDS if key.startswith("timeouts.")]
    cases = [(key, value) for key in timeouts for value in extreme_durations(key, json_only=True)]
    starts = [await start_machine(env.client, stack.task_queue,
                                  spec_dict(f"fuzz-{index}", subnet_id=subnet, timeouts={key.split(".")[1]: value}))
              for index, (key, value) in enumerate(cases)]
    for handle, (key, value) in zip(starts, cases, strict=True):
        assert EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in await _settled(stack, handle), value
        assert stack.emulator.requests()["total"] == 0, value
        with pytest.raises(WorkflowFailureError) as failure:
            await handle.result()
        message = str(failure.value.cause)
        assert f"{key}: " in message and BOUNDS[key].range in message, (value, message)

    machine = await start_machine(env.client, stack.task_queue, spec_dict(subnet_id=subnet))
    pool = await start_pool(env.client, stack.task_queue, pool_dict(subnet, 0))
    await wait_pool(env, pool, settled(0))
    for key, value in cases:
        given = {key.split(".")[1]: value}
        refused = await _refusal(machine, UPDATE_SPEC, spec_dict(subnet_id=subnet, timeouts=given))
        assert f"{key}: " in refused and BOUNDS[key].range in refused, (value, refused)
        refused = await _refusal(pool, SET_TEMPLATE_UPDATE, {"template": template_dict(subnet, timeouts=given)})
        assert f"template.{key}: " in refused and BOUNDS[key].range in refused, (value, refused)
    await machine.signal("delete")
    await pool.signal("delete")
    await machine.result()
    await pool.result()
