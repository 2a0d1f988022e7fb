"""Machines of one group that read what exists of them together, at Azure's read pace, share the group's list
(activities/reading/group_listing.py) without waiting for it inside a workflow task: the worker has few workflow
task slots, and a read waiting there for company held one, so machines queued behind each other (issue 38). A read
that would wait is asked again as a regular activity, and each machine still comes up and goes away clean."""

import asyncio

from temporalio.api.enums.v1 import EventType

from models.activity_io import ActivityName
from models.status import Phase
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

CROWD = 4
READS = {ActivityName.FIND_VM.value, ActivityName.READ_INVENTORY.value}


async def test_a_crowds_reads_wait_for_the_group_list_as_activities_not_inside_workflow_tasks(stack: Stack) -> None:
    names = [f"crowd{i}" for i in range(CROWD)]
    handles = await asyncio.gather(*(
        start_machine(stack.env.client, stack.task_queue,
                      spec_dict(name=name, subnet_id=stack.emulator.subnet_id, data_disks=[]))
        for name in names))
    for handle in handles:
        await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    await asyncio.gather(*(handle.signal("delete", {"reason": "test done"}) for handle in handles))
    finals = [await wait_for(stack.env, handle, in_phase(Phase.DELETED)) for handle in handles]

    assert all(final.phase == Phase.DELETED and final.inventory.is_empty for final in finals)
    assert all(stack.machine_resources(name) == [] for name in names)
    as_activities = 0
    for handle in handles:
        async for event in handle.fetch_history_events():
            if (event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
                    and event.activity_task_scheduled_event_attributes.activity_type.name in READS):
                as_activities += 1
    # The first to ask is listed at once, alone, in its workflow task; those asking within the gap after it
    # wait for the group's next list as activities (today's code waited inside their workflow tasks).
    assert as_activities >= 1
