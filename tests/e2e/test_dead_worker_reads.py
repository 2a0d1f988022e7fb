"""Short calls heartbeat: a read its worker died in is retried within SHORT_HEARTBEAT, and a slow one runs on.

Before, a short call had only its 30 s start-to-close: the chaos test measured each read or offerings question
a SIGKILLed worker held stalling its machine 31 s, and a prober's stalled every machine waiting for it.
"""

from typing import Any

from temporalio.api.enums.v1 import EventType, TimeoutType
from temporalio.client import Client

from cli.machines import apply
from models.activity_io import ActivityName
from models.naming import workflow_id
from models.spec import MachineSpec
from tests.e2e.machines import spec, wait_phase
from tests.e2e.stack import STACK_CONVERTER, Stack, wait_until
from workers.settings import TASK_QUEUE
from workflows.policies import SHORT_HEARTBEAT

SLOWER_THAN_THE_HEARTBEAT_TIMEOUT_S = SHORT_HEARTBEAT.total_seconds() + 3
# A new machine's first read (find_vm) lists its resource group; each test's fault slows that one request.
FIRST_READ = "resources.list"


async def _first_find_vm(client: Client, item: MachineSpec) -> tuple[float, Any]:
    """The first `find_vm` of the machine: how long it took to its completion, and its last attempt's start."""
    history = await client.get_workflow_handle(workflow_id(item.resource_group, item.name)).fetch_history()
    events = list(history.events)
    scheduled = next(e for e in events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
                     and e.activity_task_scheduled_event_attributes.activity_type.name == ActivityName.FIND_VM.value)
    started = next(e for e in events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
                   and e.activity_task_started_event_attributes.scheduled_event_id == scheduled.event_id)
    completed = next(e for e in events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
                     and e.activity_task_completed_event_attributes.scheduled_event_id == scheduled.event_id)
    took = completed.event_time.ToDatetime() - scheduled.event_time.ToDatetime()
    return took.total_seconds(), started.activity_task_started_event_attributes


async def test_a_slow_read_on_a_live_worker_is_not_cut_by_the_heartbeat_timeout(stack: Stack) -> None:
    item = spec("slow-read")
    stack.emulator.control.add_fault(operation=FIRST_READ, status=0, delay_s=SLOWER_THAN_THE_HEARTBEAT_TIMEOUT_S)
    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    await apply(client, item, TASK_QUEUE)
    await wait_phase(client, [item], "Running", timeout_s=90)

    took, last_start = await _first_find_vm(client, item)
    assert last_start.attempt == 1, f"a slow read was cut and retried: {last_start.last_failure.message}"
    assert took >= SLOWER_THAN_THE_HEARTBEAT_TIMEOUT_S, "the delayed list was the machine's first read"


async def test_a_read_its_worker_died_in_is_retried_after_the_heartbeat_timeout(stack: Stack) -> None:
    item = spec("orphaned-read")
    emulator = stack.emulator.control
    # Past the heartbeat timeout, no longer: the emulator is done with the dead worker's read by teardown.
    fault = emulator.add_fault(operation=FIRST_READ, status=0, delay_s=SLOWER_THAN_THE_HEARTBEAT_TIMEOUT_S)
    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    await apply(client, item, TASK_QUEUE)
    # A rule used its `times` up is gone: the read reached the emulator and hangs there.
    wait_until(lambda: all(f["id"] != fault for f in emulator.faults()), 60, "the read to hang")
    stack.worker.kill()  # the read hangs on in the emulator: only the heartbeat timeout ends that attempt
    stack.worker.start()
    await wait_phase(client, [item], "Running", timeout_s=90)

    _, last_start = await _first_find_vm(client, item)
    assert last_start.attempt == 2
    timeout = last_start.last_failure.timeout_failure_info.timeout_type
    assert timeout == TimeoutType.TIMEOUT_TYPE_HEARTBEAT, TimeoutType.Name(timeout)
