"""Foresight: a machine acts on what Azure announced of its VM, read by the fleet sweep. A scheduled reboot puts it
in Maintenance with its health checks paused, so the reboot starts no repair; a degrading host makes it redeploy
itself before Azure's deadline, keeping its data disks, inside Azure's self-service window when the VM shows one; a
machine without foresight is sent nothing."""

from datetime import timedelta
from typing import Any

from temporalio.client import WorkflowHandle

from models.status import Phase, Stage
from models.temporal_api import FORESIGHT_SIGNAL
from tests.workflows.data_disks import unique_id, vm
from tests.workflows.helpers import between_tasks, described, in_phase, spec_dict, status_of, wait_for
from tests.workflows.stack import Stack
from tests.workflows.sweeping import azure, running_machine, sweep
from tests.workflows.test_update_spec import update

# The machine's own check every minute and a short health timeout: a reboot would be repaired within minutes.
WATCHED = {"health": "2m", "health_check_interval": "1m"}


def _count(stack: Stack, operation: str) -> int:
    return stack.emulator.requests()["by_operation"].get(f"virtualMachines.{operation}", 0)


async def _first_notices(stack: Stack, handle: WorkflowHandle) -> Any:
    """The first `foresight` signal's payload the machine received, as the sweep sent it."""
    async for event in handle.fetch_history_events():
        signaled = event.workflow_execution_signaled_event_attributes
        if event.HasField("workflow_execution_signaled_event_attributes") and signaled.signal_name == FORESIGHT_SIGNAL:
            (payload,) = await stack.env.client.data_converter.decode(signaled.input.payloads)
            return payload
    raise AssertionError("no foresight signal in the machine's history")


async def test_a_scheduled_reboot_pauses_health_checks_and_starts_no_repair(stack: Stack) -> None:
    handle = await running_machine(stack, "vm1", timeouts=WATCHED, data_disks=[], foresight=True)
    event = stack.emulator.schedule_event("vm1", "Reboot", duration_seconds=600)

    report = await sweep(stack)
    assert [line.split(":")[0] for line in report.foresight_signalled] == ["machine/azmc-demo/vm1"]
    marked = await wait_for(stack.env, handle, in_phase(Phase.MAINTENANCE), virtual_limit=timedelta(minutes=2))
    assert marked.maintenance is not None and marked.maintenance.notice.id == event["EventId"]
    assert marked.maintenance.action == "wait" and marked.maintenance.until is not None
    shown = f"Reboot {event['EventId']} scheduled"
    assert shown in described(marked) and "health checks paused" in described(marked)  # azmc describe
    details = await handle.query("__temporal_workflow_metadata")
    assert "Maintenance" in details.current_details and shown in details.current_details  # the UI

    stack.emulator.start_event(event["EventId"])  # the deadline: the guest reboots, Azure says Unavailable
    for _ in range(5):  # ten virtual minutes (the reboot announced 10), five health timeouts, a sweep every two
        await stack.env.sleep(timedelta(minutes=2))
        assert (await sweep(stack)).signalled == []  # no drift sent for a machine in Maintenance
    during = await status_of(handle)
    assert during.phase == Phase.MAINTENANCE and during.repair is None
    assert _count(stack, "restart") == 0 and _count(stack, "redeploy") == 0

    stack.emulator.complete_event(event["EventId"])
    await sweep(stack)
    back = await wait_for(stack.env, handle, in_phase(Phase.RUNNING), virtual_limit=timedelta(minutes=3))
    assert back.maintenance is not None and "over" in back.maintenance.done
    assert not any(op.stage == Stage.REPAIR for op in back.recent_operations)
    assert _count(stack, "restart") == 0 and _count(stack, "redeploy") == 0
    await handle.signal("delete")
    await handle.result()


async def test_a_degraded_host_is_redeployed_before_its_deadline_with_the_same_data_disks(stack: Stack) -> None:
    handle = await running_machine(stack, "vm1", timeouts=WATCHED, foresight=True)  # one data disk
    host, disk = vm(stack)["host"], unique_id(stack)
    degraded = stack.emulator.degrade_host("vm1", not_before_seconds=3600)

    await sweep(stack)
    done = await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and s.maintenance is not None
                          and bool(s.maintenance.done), virtual_limit=timedelta(minutes=3))
    assert "redeployed ahead of Azure" in done.maintenance.done
    assert _count(stack, "redeploy") == 1
    assert vm(stack)["host"] != host and unique_id(stack) == disk
    (event,) = stack.emulator.scheduled_events()
    assert event["EventId"] == degraded["scheduled_event"]["EventId"]
    assert (event["EventStatus"], event["outcome"]) == ("Completed", "approved by redeploy")  # before Azure acted
    assert any(op.stage == Stage.MAINTENANCE and "redeploying now" in op.description for op in done.recent_operations)

    # A sweep that read the old host before it moved, its notices (the event and the Degraded annotation) arriving
    # only now: the one redeploy answered both.
    stale = await _first_notices(stack, handle)
    assert sorted(n["kind"] for n in stale["notices"]) == ["Degraded", "Redeploy"]
    await handle.signal(FORESIGHT_SIGNAL, stale)
    await between_tasks(stack.env, handle.id)
    await stack.env.sleep(timedelta(minutes=2))
    assert _count(stack, "redeploy") == 1 and (await status_of(handle)).phase == Phase.RUNNING

    await sweep(stack)  # the completed event again: acted on once
    await stack.env.sleep(timedelta(minutes=2))
    assert _count(stack, "redeploy") == 1 and (await status_of(handle)).phase == Phase.RUNNING
    await handle.signal("delete")
    await handle.result()


async def test_a_scheduled_redeploy_waits_for_azures_self_service_window_before_its_deadline(stack: Stack) -> None:
    handle = await running_machine(stack, "vm1", timeouts=WATCHED, data_disks=[], foresight=True)
    host = vm(stack)["host"]
    # Azure redeploys it in 4 hours; its owner may do it first between 1 and 2 hours from now.
    event = stack.emulator.schedule_event("vm1", "Redeploy", not_before_seconds=4 * 3600, self_service=(3600, 7200))
    shown = azure(stack).compute.virtual_machines.instance_view("azmc-demo", "vm1").maintenance_redeploy_status
    assert shown is not None and shown.is_customer_initiated_maintenance_allowed is False  # not open yet

    await sweep(stack)
    await stack.env.sleep(timedelta(minutes=2))
    assert _count(stack, "redeploy") == 0  # not at once: its window has not opened
    planned = await status_of(handle)
    assert planned.phase == Phase.MAINTENANCE and planned.maintenance is not None
    assert planned.maintenance.planned == shown.pre_maintenance_window_start_time  # the status
    assert "redeploy planned at" in described(planned)  # azmc describe
    for _ in range(5):  # until just before the window opens, the sweep sending the notice every ten minutes
        await stack.env.sleep(timedelta(minutes=10))
        await sweep(stack)
        assert (await status_of(handle)).phase == Phase.MAINTENANCE and _count(stack, "redeploy") == 0

    done = await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and s.maintenance is not None
                          and bool(s.maintenance.done), virtual_limit=timedelta(minutes=30))
    assert "redeployed ahead of Azure" in done.maintenance.done and done.maintenance.done.endswith("data disks kept")
    assert _count(stack, "redeploy") == 1 and vm(stack)["host"] != host
    (record,) = stack.emulator.scheduled_events()
    assert (record["EventId"], record["outcome"]) == (event["EventId"], "approved by redeploy")
    await handle.signal("delete")
    await handle.result()


async def test_a_machine_without_foresight_is_sent_nothing_and_repairs_as_before(stack: Stack) -> None:
    handle = await running_machine(stack, "vm1", timeouts=WATCHED, data_disks=[])
    event = stack.emulator.schedule_event("vm1", "Reboot", duration_seconds=600)
    report = await sweep(stack)
    assert report.foresight_signalled == []
    stack.emulator.start_event(event["EventId"])
    sick = await wait_for(stack.env, handle, in_phase(Phase.UNHEALTHY), virtual_limit=timedelta(minutes=3))
    assert sick.maintenance is None
    await handle.signal("delete")
    await handle.result()


async def test_foresight_is_turned_on_and_off_in_place_on_a_running_machine(stack: Stack) -> None:
    handle = await running_machine(stack, "vm1", data_disks=[])
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, data_disks=[])
    vm_id = vm(stack)["vmId"]
    event = stack.emulator.schedule_event("vm1", "Reboot")
    assert (await sweep(stack)).foresight_signalled == []  # not published yet

    answer = await update(handle, {**spec, "foresight": True})
    assert answer.changed == ["foresight"] and "VM updated in place" in answer.message
    assert vm(stack)["vmId"] == vm_id  # the same VM
    assert [line.split(": ", 1)[1].split(" ")[1] for line in (await sweep(stack)).foresight_signalled] == [
        event["EventId"]]
    await wait_for(stack.env, handle, in_phase(Phase.MAINTENANCE), virtual_limit=timedelta(minutes=2))

    await update(handle, {**spec, "foresight": False})
    assert (await sweep(stack)).foresight_signalled == []  # its events are not published any more
    await handle.signal("delete")
    await handle.result()
