"""`preserve`: the VM is deallocated and kept, never started or re-created again; `delete` still removes all."""

from datetime import timedelta

from temporalio.client import WorkflowHandle

from models.status import MachineStatus, Phase, Stage
from models.temporal_api import PRESERVE_SIGNAL
from tests.workflows.data_disks import descriptions, unique_id, vm
from tests.workflows.helpers import between_tasks, in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack
from workflows.continuation import HISTORY_LIMIT_MEMO
from workflows.policies import MIN_HISTORY_LIMIT


def _count(stack: Stack, operation: str) -> int:
    return stack.emulator.requests()["by_operation"].get(operation, 0)


def _preserved(status: MachineStatus) -> bool:
    return status.preserved and any(d.startswith("preserved (") for d in descriptions(status))


async def _delete_leaves_nothing(stack: Stack, handle: WorkflowHandle) -> MachineStatus:
    await handle.signal("delete", {"reason": "diagnosed"})
    final = await handle.result()
    assert final.phase == Phase.DELETED and stack.machine_resources() == []
    return final


async def test_preserved_machine_is_deallocated_and_never_started_or_recreated(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"health_check_interval": "2m", "health": "5m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    before_vm, before_disk, puts = vm(stack), unique_id(stack), _count(stack, "virtualMachines.put")
    await handle.signal(PRESERVE_SIGNAL, {"reason": "kernel panic, keep for diagnosis"})
    preserved = await wait_for(stack.env, handle, _preserved)
    assert preserved.preserved_reason == "kernel panic, keep for diagnosis" and preserved.preserved_at is not None
    assert preserved.phase == Phase.UNKNOWN
    assert vm(stack)["powerState"] == "deallocated" and vm(stack)["id"] == before_vm["id"]
    assert unique_id(stack) == before_disk and preserved.inventory.vm_state.power_state == "deallocated"
    assert "preserved (kernel panic, keep for diagnosis): VM vm1 deallocated" in descriptions(preserved)[-1]
    # Neither an operator's reconcile nor hours of health checks start it or re-create it.
    await handle.signal("reconcile")
    await between_tasks(stack.env, handle.id)
    await stack.env.sleep(timedelta(hours=3))
    later = await wait_for(stack.env, handle, lambda s: "reconcile ignored" in descriptions(s)[-1])
    assert later.preserved and later.phase == Phase.UNKNOWN and later.last_operation.stage == Stage.PRESERVE
    assert vm(stack)["powerState"] == "deallocated" and vm(stack)["id"] == before_vm["id"]
    assert _count(stack, "virtualMachines.start") == 0 and _count(stack, "virtualMachines.put") == puts
    # A second preserve changes nothing (the first reason stays).
    await handle.signal(PRESERVE_SIGNAL, {"reason": "again"})
    assert (await wait_for(stack.env, handle, _preserved)).preserved_reason == "kernel panic, keep for diagnosis"
    final = await _delete_leaves_nothing(stack, handle)
    assert final.preserved  # the status still says what the machine was
    await record_history(handle, "preserved_machine_never_started")


async def test_preserve_stops_a_failing_creation_and_keeps_what_it_left(stack: Stack) -> None:
    stack.emulator.add_fault("virtualMachines.put", name="vm1", times=-1, status=409, code="AllocationFailed",
                             stage="operation")
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"health_check_interval": "2m", "health": "5m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.CRASH_LOOP_BACK_OFF))
    await handle.signal(PRESERVE_SIGNAL)  # no payload: still preserved
    preserved = await wait_for(stack.env, handle, _preserved)
    assert preserved.preserved_reason == "no reason given" and preserved.phase == Phase.UNKNOWN
    puts = _count(stack, "virtualMachines.put")
    await stack.env.sleep(timedelta(hours=1))  # far past every backoff and the creation timeout
    idle = await wait_for(stack.env, handle, _preserved)
    assert _count(stack, "virtualMachines.put") == puts and idle.phase == Phase.UNKNOWN
    assert idle.attempts == preserved.attempts
    await _delete_leaves_nothing(stack, handle)


async def test_preserved_machine_stays_preserved_across_continue_as_new(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"health_check_interval": "2m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec,
                                 memo={HISTORY_LIMIT_MEMO: MIN_HISTORY_LIMIT})
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    await handle.signal(PRESERVE_SIGNAL, {"reason": "disk corruption"})
    await wait_for(stack.env, handle, _preserved)
    latest = stack.env.client.get_workflow_handle(handle.id, result_type=MachineStatus)
    for _ in range(60):  # every ignored reconcile grows the history until the run continues as new
        description = await latest.describe()
        if description.run_id != handle.first_execution_run_id:
            break
        await latest.signal("reconcile")
        await between_tasks(stack.env, latest.id)
        await stack.env.sleep(timedelta(seconds=5))  # one workflow task per signal
    assert description.run_id != handle.first_execution_run_id, "never continued as new"
    await stack.env.sleep(timedelta(hours=1))
    carried = await wait_for(stack.env, latest, _preserved)
    assert carried.preserved_reason == "disk corruption" and carried.phase == Phase.UNKNOWN
    assert vm(stack)["powerState"] == "deallocated" and _count(stack, "virtualMachines.start") == 0
    await _delete_leaves_nothing(stack, latest)
