"""A read its worker died in runs again on the next worker, and a slow read on a live worker runs on.

A new machine's reads are local activities (LOCAL_SHORT_CALLS): the worker running the workflow task runs
them, a marker in that task's completion. Slower than the task's 10 s timeout, sdk-core heartbeats the task;
its worker dead, the task times out and the next worker replays the machine and reads again.
"""

import json
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from bench.histories import LOCAL_ACTIVITY_MARKER
from cli.machines import apply
from models.activity_io import ActivityName
from models.naming import workflow_id
from models.spec import MachineSpec
from tests.e2e.machines import spec, wait_phase
from tests.e2e.stack import STACK_CONVERTER, Stack, wait_until
from workers.settings import TASK_QUEUE

SLOWER_THAN_A_WORKFLOW_TASK_S = 13.0  # its start-to-close timeout is 10 s
# A new machine's first read (find_vm) lists its resource group; each test's fault slows that one request.
FIRST_READ = "resources.list"
_E = EventType


async def _events(client: Client, item: MachineSpec) -> list[Any]:
    history = await client.get_workflow_handle(workflow_id(item.resource_group, item.name)).fetch_history()
    return list(history.events)


def _local(event: Any) -> dict[str, Any] | None:
    """A local activity marker's own record (sdk-core's, never encrypted): activity_type, attempt, ..."""
    if event.event_type != _E.EVENT_TYPE_MARKER_RECORDED:
        return None
    marker = event.marker_recorded_event_attributes
    if marker.marker_name != LOCAL_ACTIVITY_MARKER:
        return None
    return dict(json.loads(marker.details["data"].payloads[0].data))


def _first_find_vm(events: list[Any]) -> tuple[dict[str, Any], float]:
    """The first find_vm's marker record, and how long after the run's start it was recorded."""
    event, record = next((e, r) for e in events if (r := _local(e)) and r["activity_type"] == ActivityName.FIND_VM)
    return record, (event.event_time.ToDatetime() - events[0].event_time.ToDatetime()).total_seconds()


def _count(events: list[Any], kind: int) -> int:
    return sum(1 for e in events if e.event_type == kind)


async def test_a_slow_read_on_a_live_worker_runs_on(stack: Stack) -> None:
    item = spec("slow-read")
    stack.emulator.control.add_fault(operation=FIRST_READ, status=0, delay_s=SLOWER_THAN_A_WORKFLOW_TASK_S)
    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    await apply(client, item, TASK_QUEUE)
    await wait_phase(client, [item], "Running", timeout_s=90)

    events = await _events(client, item)
    record, after_s = _first_find_vm(events)
    assert record["attempt"] == 1, "a slow read was cut and tried again"
    assert after_s >= SLOWER_THAN_A_WORKFLOW_TASK_S, "the delayed list was the machine's first read"
    assert _count(events, _E.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT) == 0
    assert _count(events, _E.EVENT_TYPE_WORKFLOW_TASK_FAILED) == 0


async def test_a_read_its_worker_died_in_is_read_again_by_the_next_worker(stack: Stack) -> None:
    item = spec("orphaned-read")
    emulator = stack.emulator.control
    # Past the task's timeout, no longer: the emulator is done with the dead worker's read by teardown.
    fault = emulator.add_fault(operation=FIRST_READ, status=0, delay_s=SLOWER_THAN_A_WORKFLOW_TASK_S)
    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    await apply(client, item, TASK_QUEUE)
    # A rule used its `times` up is gone: the read reached the emulator and hangs there.
    wait_until(lambda: all(f["id"] != fault for f in emulator.faults()), 60, "the read to hang")
    stack.worker.kill()
    stack.worker.start()
    await wait_phase(client, [item], "Running", timeout_s=90)

    events = await _events(client, item)
    assert _count(events, _E.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT) >= 1, "the dead worker's task timed out"
    record, _ = _first_find_vm(events)
    assert record["attempt"] == 1  # the next worker's read, on its first try: nothing was waited out
