"""The next creation attempt always follows a timer, also when compensating outlasted the backoff: the
command must not hang on the clock, which a worker reads differently in the task after a timed-out one than
its replay does (the chaos test's machines failed to replay: "Timer machine does not handle this event")."""

from temporalio.api.enums.v1 import EventType

from models.status import Phase
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack
from workflows.policies import CREATION_BACKOFF_START


async def test_the_next_attempt_waits_on_a_timer_when_compensating_outlasted_the_backoff(stack: Stack) -> None:
    emulator = stack.emulator
    emulator.add_fault("virtualMachines.put", name="vm1", status=500, times=3)  # attempt 1 fails, its NIC made
    # Its compensation is refused once (not retried inside the activity): the cleanup waits its own 5 s backoff,
    # so when it is done the creation backoff (5 s from the failure) has passed.
    emulator.add_fault("networkInterfaces.delete", name="vm1-nic", status=409, code="Conflict", times=1)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    await record_history(handle, "backoff_timer_after_a_long_compensation")
    events = [e async for e in handle.fetch_history_events()]
    scheduled = {e.event_id: e.activity_task_scheduled_event_attributes.activity_type.name for e in events
                 if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED}
    deletes = [i for i, name in scheduled.items() if name == "delete_nic"]
    second_vm = [i for i, name in scheduled.items() if name == "ensure_vm"][1]
    assert len(deletes) == 2, scheduled  # refused, then done after the cleanup backoff
    timers = [e for e in events if e.event_type == EventType.EVENT_TYPE_TIMER_STARTED and deletes[-1] < e.event_id
              < second_vm]
    assert len(timers) == 1, "the next attempt began without a timer"
    assert timers[0].timer_started_event_attributes.start_to_fire_timeout.ToTimedelta() < CREATION_BACKOFF_START
