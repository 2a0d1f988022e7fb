"""What an operator sees in the Temporal UI: search attributes, current details, activity summaries."""

from datetime import timedelta

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle

from emulator.seed import SEED_RESOURCE_GROUP
from models.search_attributes import AZMC_MACHINE, AZMC_PHASE, AZMC_POOL, AZMC_RESOURCE_GROUP
from models.status import Phase
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack
from workflows.machine.health import UNKNOWN_RECHECK


async def _current_details(handle: WorkflowHandle) -> str:
    # The UI reads current details through this built-in query.
    metadata = await handle.query("__temporal_workflow_metadata")
    return metadata["currentDetails"] if isinstance(metadata, dict) else metadata.current_details


async def test_search_attributes_details_and_summaries_follow_the_machine(stack: Stack) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    attributes = (await handle.describe()).typed_search_attributes
    assert attributes.get(AZMC_PHASE) == "Running"
    assert attributes.get(AZMC_MACHINE) == "vm1"
    assert attributes.get(AZMC_RESOURCE_GROUP) == SEED_RESOURCE_GROUP
    assert attributes.get(AZMC_POOL) == "workers"
    details = await _current_details(handle)
    assert "vm1 - Running" in details and "vm1-nic" in details and "Last error:** none" in details

    await handle.signal("delete")
    await handle.result()
    assert (await handle.describe()).typed_search_attributes.get(AZMC_PHASE) == "Deleted"
    summaries = []
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            # Sealed by the codec like every payload; the UI opens them through the codec server.
            assert event.user_metadata.summary.metadata["encoding"] == b"binary/encrypted"
            (summary,) = await stack.env.client.data_converter.decode([event.user_metadata.summary], [str])
            summaries.append(summary)
    assert any("Create VM vm1" in s for s in summaries), summaries
    assert any("Delete VM vm1" in s for s in summaries), summaries


async def test_a_health_check_that_cannot_read_azure_shows_the_error_and_the_next_read(stack: Stack) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    stack.emulator.add_fault("virtualMachines.get", name="vm1", status=500, code="InternalServerError", times=5)
    await handle.signal("reconcile")
    failed = await wait_for(stack.env, handle, lambda s: "could not read the VM" in
                            (s.last_operation.description if s.last_operation else ""), step=timedelta(seconds=5))
    # Five 500s outlast the read's own retries: Unknown (docs/health.md), read again at the Unknown rhythm.
    assert failed.phase == Phase.UNKNOWN and "InternalServerError" in failed.last_error
    assert failed.next_retry_at == failed.last_operation.updated_at + UNKNOWN_RECHECK
    assert "Next retry:** " + f"{failed.next_retry_at:%Y-%m-%d %H:%M:%S}" in await _current_details(handle)
    await handle.signal("delete")
    await handle.result()
