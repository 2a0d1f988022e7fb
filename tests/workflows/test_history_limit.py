"""memo azmc_history_limit: bounded below, so a machine never continues as new every second; a bad
value is reported in the status and the default is used, instead of failing workflow tasks forever."""

from datetime import timedelta

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle

from models.status import MachineStatus, Phase
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack
from workflows.continuation import HISTORY_LIMIT_MEMO
from workflows.policies import DEFAULT_HISTORY_LIMIT, MIN_HISTORY_LIMIT


def _notes(status: MachineStatus) -> list[str]:
    return [op.description for op in status.recent_operations]


async def _first_run_events(stack: Stack, handle: WorkflowHandle) -> list[int]:
    first = stack.env.client.get_workflow_handle(handle.id, run_id=handle.first_execution_run_id)
    return [event.event_type async for event in first.fetch_history_events()]


async def test_history_limit_of_one_is_raised_to_the_minimum(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"health_check_interval": "1m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec, memo={HISTORY_LIMIT_MEMO: 1})
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    assert f"history limit 1 is below the minimum; using {MIN_HISTORY_LIMIT}" in _notes(running)
    latest = stack.env.client.get_workflow_handle(handle.id, result_type=MachineStatus)
    for _ in range(60):  # health checks every minute grow the history until it continues as new
        if (await latest.describe()).run_id != handle.first_execution_run_id:
            break
        await stack.env.sleep(timedelta(minutes=1))
    events = await _first_run_events(stack, handle)
    await record_history(stack.env.client.get_workflow_handle(handle.id, run_id=handle.first_execution_run_id),
                         "history_limit_floor_first_run")
    assert events[-1] == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW
    # The first run did real work (creation, health checks) until the floor, not one task per run.
    assert len(events) > MIN_HISTORY_LIMIT
    carried = await wait_for(stack.env, latest, in_phase(Phase.RUNNING))
    assert carried.attempts == 1 and carried.inventory.provider_id == running.inventory.provider_id
    await latest.signal("delete")
    assert (await latest.result()).phase == Phase.DELETED


async def test_history_limit_that_is_not_an_integer_is_reported_and_ignored(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id)
    handle = await start_machine(stack.env.client, stack.task_queue, spec, memo={HISTORY_LIMIT_MEMO: "often"})
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    expected = f"memo {HISTORY_LIMIT_MEMO}='often' is not a positive integer; using {DEFAULT_HISTORY_LIMIT}"
    assert expected in _notes(running)
    assert EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in await _first_run_events(stack, handle)
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
