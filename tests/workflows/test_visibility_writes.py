"""A machine's history writes the visibility store as seldom as its phases allow: no patch marker (a pinned run
needs none, docs/upgrades.md), no search attribute its starter set already, Creating in the workflow task that
begins the creation. Each workflow task with an upsert is a visibility write."""

from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import WorkflowHandle

from bench.histories import tasks_with_upserts
from cli.machines import apply
from models.activity_io import ActivityName
from models.naming import workflow_id
from models.search_attributes import AZMC_MACHINE, AZMC_PHASE, AZMC_POOL, AZMC_RESOURCE_GROUP
from models.spec import MachineSpec
from models.status import MachineStatus, Phase
from tests.workflows.helpers import RESOURCE_GROUP, in_phase, spec_dict, start_machine, wait_for
from tests.workflows.pools import pool_dict, settled, start_pool, wait_pool
from tests.workflows.stack import Stack

_PATCH_MARKER = "core_patch"  # sdk-core's marker name for workflow.patched


async def _lifecycle(stack: Stack, handle: WorkflowHandle) -> list[HistoryEvent]:
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    await handle.signal("delete")
    await handle.result()
    return [event async for event in handle.fetch_history_events()]


def _upserts(events: list[HistoryEvent]) -> list[dict[str, str]]:
    """Each upsert's keys and (Keyword) values, in history order."""
    upserts = []
    for event in events:
        if event.event_type == EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
            fields = event.upsert_workflow_search_attributes_event_attributes.search_attributes.indexed_fields
            upserts.append({key: payload.data.decode().strip('"') for key, payload in fields.items()})
    return upserts


def _patch_markers(events: list[HistoryEvent]) -> int:
    return sum(event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
               and event.marker_recorded_event_attributes.marker_name == _PATCH_MARKER for event in events)


async def test_a_machine_applied_with_its_search_attributes_upserts_only_its_phase_changes(stack: Stack) -> None:
    client = stack.env.client
    spec = MachineSpec.model_validate(spec_dict(subnet_id=stack.emulator.subnet_id))
    applied = await apply(client, spec, stack.task_queue)  # sets machine, resource group, pool, Pending at start
    handle = client.get_workflow_handle(applied.workflow_id, result_type=MachineStatus)
    events = await _lifecycle(stack, handle)

    upserts = _upserts(events)
    assert [u[AZMC_PHASE.name] for u in upserts if AZMC_PHASE.name in u] == [
        "Creating", "Running", "Terminating", "Deleted"]
    assert not any(key in u for u in upserts for key in (AZMC_MACHINE.name, AZMC_RESOURCE_GROUP.name, AZMC_POOL.name))
    # The first task (Creating), Running, Terminating, Deleted.
    assert tasks_with_upserts(events) == 4
    # No patch marker, and with it no TemporalChangeVersion upsert of sdk-core's.
    assert _patch_markers(events) == 0
    # Deletion's last read finds nothing: an answer, so the UI shows no failed activity in a clean lifecycle.
    assert not [e for e in events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED]
    # The short calls are local activities: markers, no activity task and no workflow task more.
    scheduled = {e.activity_task_scheduled_event_attributes.activity_type.name for e in events
                 if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED}
    short = {ActivityName.FIND_VM, ActivityName.READ_INVENTORY, ActivityName.ASK_OFFERINGS, ActivityName.REPORT_REFUSAL}
    assert not scheduled & {name.value for name in short}, scheduled


async def test_a_machine_started_without_search_attributes_still_shows_them(stack: Stack) -> None:
    """The `temporal workflow start` of the README sets none: the machine upserts them in its first task."""
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    events = await _lifecycle(stack, handle)
    upserts = _upserts(events)
    assert {AZMC_MACHINE.name: "vm1", AZMC_RESOURCE_GROUP.name: "azmc-demo", AZMC_POOL.name: "workers"} in upserts
    assert [u[AZMC_PHASE.name] for u in upserts if AZMC_PHASE.name in u] == [
        "Pending", "Creating", "Running", "Terminating", "Deleted"]
    assert tasks_with_upserts(events) == 4 and _patch_markers(events) == 0


async def test_a_pools_machine_tells_its_pool_every_phase_even_those_it_does_not_upsert(stack: Stack) -> None:
    """The pool starts its machine with Pending set: not upserted again, but still told (pool_notice.py)."""
    client = stack.env.client
    pool = await start_pool(client, stack.task_queue, pool_dict(stack.emulator.subnet_id, 1))
    (machine,) = (await wait_pool(stack.env, pool, settled(1))).machines
    await pool.signal("delete", {"reason": "test done"})
    await pool.result()
    child = client.get_workflow_handle(workflow_id(RESOURCE_GROUP, machine.name))
    events = [event async for event in child.fetch_history_events()]
    told = []
    for event in events:
        if event.event_type == EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
            payloads = event.signal_external_workflow_execution_initiated_event_attributes.input.payloads
            (notice,) = await client.data_converter.decode(payloads)
            told.append(notice["phase"])
    assert told == ["Pending", "Creating", "Running", "Terminating", "Deleted"]
    assert "Pending" not in [u.get(AZMC_PHASE.name) for u in _upserts(events)]
