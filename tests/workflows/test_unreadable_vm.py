"""A VM azmc cannot read is Unknown with Azure's code and message, never shown Running on an old reading: read
again at the Unknown rhythm, Running again once reads work, and nothing is repaired, started or re-created while it
cannot be read. A 429 or 5xx that the read's own retries absorb changes nothing."""

from datetime import timedelta
from typing import Any

from models.status import OperationState, Phase, Stage
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, status_of, wait_for
from tests.workflows.stack import Stack

# Azure's answer to a read the identity has no role for (Compute's wording, a role assignment removed).
DENIED = ("The client 'azmc' with object id '00000000-0000-0000-0000-00000000a2c0' does not have authorization to "
          "perform action 'Microsoft.Compute/virtualMachines/read' over scope '/subscriptions/00000000-0000-0000-"
          "0000-000000000000/resourceGroups/azmc-demo/providers/Microsoft.Compute/virtualMachines/s1' or the scope "
          "is invalid. If access was recently granted, please refresh your credentials.")
# Every write that could repair, start or re-create the VM.
WRITES = ("virtualMachines.put", "virtualMachines.restart", "virtualMachines.redeploy", "virtualMachines.start",
          "virtualMachines.delete", "networkInterfaces.put")


def _writes(stack: Stack) -> dict[str, int]:
    counts = stack.emulator.requests()["by_operation"]
    return {name: counts.get(name, 0) for name in WRITES}


def _reads(stack: Stack) -> int:
    return int(stack.emulator.requests()["by_operation"].get("virtualMachines.get", 0))


async def _running(stack: Stack, **overrides: Any) -> Any:
    spec = spec_dict("s1", subnet_id=stack.emulator.subnet_id, **overrides)
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    return handle


async def test_a_vm_azmc_cannot_read_is_unknown_with_azures_reason_until_reads_work(stack: Stack) -> None:
    handle = await _running(stack, timeouts={"health": "10m"})
    # A blip the read's own retries absorb (two 429s, a 503) changes nothing.
    stack.emulator.add_fault("virtualMachines.get", name="s1", status=429, code="TooManyRequests", times=2,
                             retry_after_s=1)
    stack.emulator.add_fault("virtualMachines.get", name="s1", status=503, times=1)
    before = await status_of(handle)
    await handle.signal("reconcile")
    # The check first says "reading the VM" (Processing), then what it read.
    running = await wait_for(stack.env, handle, lambda s: s.last_operation != before.last_operation
                             and s.last_operation.state != OperationState.PROCESSING,
                             virtual_limit=timedelta(minutes=1))
    assert stack.emulator.faults() == []  # all three failed answers were met
    assert running.phase == Phase.RUNNING and running.last_error == ""
    assert running.last_operation is not None and running.last_operation.description == "VM s1 is running"
    assert any(s.name == "vm_agent" and s.value == "Ready" for s in running.health)

    denied = stack.emulator.add_fault("virtualMachines.get", name="s1", status=403, code="AuthorizationFailed",
                                      message=DENIED, times=-1)
    writes = _writes(stack)

    await handle.signal("reconcile")
    unknown = await wait_for(stack.env, handle, in_phase(Phase.UNKNOWN), virtual_limit=timedelta(minutes=1))
    assert "AuthorizationFailed" in unknown.last_error
    assert "Microsoft.Compute/virtualMachines/read" in unknown.last_error
    assert unknown.last_operation is not None and unknown.last_operation.stage == Stage.HEALTH_CHECK
    assert unknown.last_operation.description.startswith("could not read the VM (AuthorizationFailed): Unknown")
    # Checked again at the Unknown rhythm (10 minutes), not at the next 6-hourly check.
    assert unknown.next_retry_at == unknown.last_operation.updated_at + timedelta(minutes=10)
    # The agent read before is shown as what it was, not as today's.
    assert unknown.health_heading().startswith("not current (the VM could not be read): as read at ")

    # Hours pass, far beyond the health timeout: read every 10 minutes, still Unknown, nothing written.
    reads = _reads(stack)
    await stack.env.sleep(timedelta(hours=3))
    later = await status_of(handle)
    assert later.phase == Phase.UNKNOWN and "AuthorizationFailed" in later.last_error
    assert 15 <= _reads(stack) - reads <= 20
    assert _writes(stack) == writes and later.repair is None

    # The role is back: the next check reads the VM, and it is Running again.
    stack.emulator.remove_fault(denied)
    back = await wait_for(stack.env, handle, in_phase(Phase.RUNNING), step=timedelta(minutes=1),
                          virtual_limit=timedelta(minutes=11))
    assert back.last_error == "" and back.health_heading() == ""
    assert any(s.name == "vm_agent" and s.value == "Ready" for s in back.health)
    assert _writes(stack) == writes

    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
    await record_history(handle, "unreadable_vm_unknown_until_readable")


async def test_an_unhealthy_machine_that_cannot_be_read_is_not_repaired(stack: Stack) -> None:
    handle = await _running(stack, timeouts={"health": "5m", "health_check_interval": "1m"})
    stack.emulator.add_guest_fault("s1", "hang")
    await wait_for(stack.env, handle, in_phase(Phase.UNHEALTHY), step=timedelta(seconds=30))
    denied = stack.emulator.add_fault("virtualMachines.get", name="s1", status=403, code="AuthorizationFailed",
                                      message=DENIED, times=-1)
    writes = _writes(stack)
    unknown = await wait_for(stack.env, handle, in_phase(Phase.UNKNOWN), step=timedelta(seconds=30))
    assert unknown.repair is None  # the ladder stopped: no step is taken on what azmc cannot see
    await stack.env.sleep(timedelta(hours=1))
    assert (await status_of(handle)).phase == Phase.UNKNOWN and _writes(stack) == writes
    stack.emulator.remove_fault(denied)  # deletion ends only once Azure's reads find nothing left
    await handle.signal("delete")
    await handle.result()
