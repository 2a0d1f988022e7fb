"""One workflow per machine: a MachineLifecycle under any other id than `machine/<rg>/<name>` fails at once."""

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from models.errors import ErrorType
from models.status import MachineStatus, Phase
from models.temporal_api import WORKFLOW_TYPE
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack


async def test_same_spec_under_another_id_fails_without_touching_the_running_machine(stack: Stack) -> None:
    """The issue's `rogue/dup1`: it adopted the running VM and re-created it after `delete`."""
    spec = spec_dict(subnet_id=stack.emulator.subnet_id)
    machine = await start_machine(stack.env.client, stack.task_queue, spec)
    running = await wait_for(stack.env, machine, in_phase(Phase.RUNNING))
    before = stack.emulator.requests()["total"]

    rogue = await stack.env.client.start_workflow(WORKFLOW_TYPE, spec, id="rogue/dup1",
                                                  task_queue=stack.task_queue, result_type=MachineStatus)
    # The rogue fails in its first task: time stands still meanwhile, or the test server may skip to the real
    # machine's next health check, whose VM read would be counted below.
    with stack.env.auto_time_skipping_disabled(), pytest.raises(WorkflowFailureError) as failure:
        await rogue.result()
    cause = failure.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == ErrorType.INVALID_SPEC and cause.non_retryable
    assert "'rogue/dup1'" in cause.message and "'machine/azmc-demo/vm1'" in cause.message
    events = [event.event_type async for event in rogue.fetch_history_events()]
    assert EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED not in events
    assert EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in events
    assert stack.emulator.requests()["total"] == before  # not one Azure call
    await record_history(rogue, "rogue_workflow_id_rejected")

    # The real machine is untouched; once deleted, nothing comes back.
    still = await machine.query("status", result_type=MachineStatus)
    assert still.phase == Phase.RUNNING and still.inventory.provider_id == running.inventory.provider_id
    await machine.signal("delete", {"reason": "test done"})
    assert (await machine.result()).phase == Phase.DELETED
    await stack.env.sleep(3600)
    assert stack.machine_resources() == []
