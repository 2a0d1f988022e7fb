"""A read slow enough that the worker heartbeats its workflow task still leaves a history that replays.

A local activity running past 80% of the workflow task's timeout makes the worker complete the task early with
the commands it has, and record the read's answer in a later task: a history shape that only slow Azure reads
make, and which a worker restarted then must replay (CI once saw a replay fail on a timer in such a task).
"""

from datetime import timedelta

from temporalio.api.enums.v1 import EventType
from temporalio.worker import Replayer

from codec.converter import for_workers
from models.status import Phase
from tests.workflows.helpers import TEST_CONVERTER, in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack
from workers.sandbox import workflow_runner
from workflows.registry import ALL_WORKFLOWS

SLOWER_THAN_A_HEARTBEAT_S = 9.0  # the workflow task timeout is 10 s; the worker heartbeats it at 8 s
HEARTBEAT = timedelta(seconds=8)


async def test_a_machine_whose_reads_outlast_a_workflow_task_replays(stack: Stack) -> None:
    stack.emulator.add_fault("virtualMachines.get", name="vm1", status=0, delay_s=SLOWER_THAN_A_HEARTBEAT_S, times=2)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING), step=timedelta(seconds=5))
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
    history = await handle.fetch_history()
    held_open, started = [], None
    for event in history.events:  # how long each workflow task was held open, in the server's time
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
            started = event.event_time.ToDatetime()
        elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED and started is not None:
            held_open.append(event.event_time.ToDatetime() - started)
    assert max(held_open) >= HEARTBEAT  # not vacuous: a task was completed early while a read ran
    replayer = Replayer(workflows=ALL_WORKFLOWS, data_converter=for_workers(TEST_CONVERTER),
                        workflow_runner=workflow_runner())
    await replayer.replay_workflow(history)
    await record_history(handle, "slow_reads_heartbeat_the_task")
