"""Capacity fallback with the real driver and the emulator: the next offering at once, the shared memory, Spot.

Azure's refusals come from the emulator's capacity entries (a VM PUT fails as Azure fails it, with
Azure's code: ZonalAllocationFailed for a zone, SkuNotAvailable for Spot); the memory is the real
`Offerings` workflow on the same time-skipping server.
"""

from datetime import timedelta
from typing import Any

from temporalio.client import WorkflowHandle

from models.status import MachineStatus, Phase
from tests.workflows.data_disks import RG, operator, unique_id, vm
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, status_of, wait_for
from tests.workflows.stack import Stack

RUNNING_KINDS = ["disks", "disks", "networkInterfaces", "virtualMachines"]  # OS disk + one data disk


def zonal_spec(stack: Stack, name: str = "vm1", **overrides: Any) -> dict[str, Any]:
    spec = spec_dict(name=name, subnet_id=stack.emulator.subnet_id, zones=["1", "2"], **overrides)
    return spec


def vm_puts(stack: Stack) -> int:
    return stack.emulator.requests()["by_operation"].get("virtualMachines.put", 0)


def failed_vm_puts(stack: Stack) -> int:
    return stack.emulator.requests().get("failed_by_operation", {}).get("virtualMachines.put", 0)


async def vm_of(stack: Stack, name: str) -> Any:
    """The VM as Azure's SDK reads it."""
    async with operator(stack) as azure:
        return await azure.compute.virtual_machines.get(RG, name)


async def start(stack: Stack, spec: dict[str, Any]) -> WorkflowHandle:
    return await start_machine(stack.env.client, stack.task_queue, spec)


async def running(stack: Stack, handle: WorkflowHandle) -> MachineStatus:
    status = await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED), step=timedelta(seconds=5))
    assert status.phase == Phase.RUNNING, status.last_error
    return status


async def delete_all(stack: Stack, *handles: WorkflowHandle) -> None:
    for handle in handles:
        await handle.signal("delete", {"reason": "test done"})
    for handle in handles:
        assert (await handle.result()).phase == Phase.DELETED
    assert stack.emulator.resources("virtualMachines") == []


async def test_zone_out_of_capacity_runs_in_the_next_zone_at_once(stack: Stack) -> None:
    stack.emulator.make_unavailable(zone="1")
    began = await stack.env.get_current_time()
    handle = await start(stack, zonal_spec(stack))
    status = await running(stack, handle)
    assert status.attempts == 2
    assert status.offering is not None and status.offering.describe() == "Standard_D2s_v3 in zone 2"
    assert (await vm_of(stack, "vm1")).zones == ["2"]
    first, second = status.offering_attempts
    assert (first.offering.zone, first.refused) == ("1", "ZonalAllocationFailed")
    assert second.offering.zone == "2" and [s.offering.zone for s in second.skipped] == ["1"]
    assert second.skipped[0].describe(second.skipped[0].refused_at) == (
        "Standard_D2s_v3 in zone 1: ZonalAllocationFailed 0s ago, retry after 1h")
    # At once: no backoff between the refusal and the next attempt; zone 1's VM and disks compensated.
    took = status.recent_operations[-1].updated_at - began
    assert took < timedelta(seconds=30), took
    assert sorted(r["type"].split("/")[-1] for r in stack.machine_resources()) == RUNNING_KINDS
    assert any("next offering at once" in op.description for op in status.recent_operations)
    await delete_all(stack, handle)
    await record_history(handle, "capacity_zone_refused_next_zone_at_once")


async def test_the_memory_keeps_later_machines_off_a_refused_offering(stack: Stack) -> None:
    stack.emulator.make_unavailable(zone="1")  # zone 1 has no room, for anyone
    first = await start(stack, zonal_spec(stack, "vm1"))
    await running(stack, first)
    assert vm_puts(stack) == 2  # zone 1 refused, zone 2 created
    later = [await start(stack, zonal_spec(stack, f"vm{n}")) for n in (2, 3, 4)]
    for handle in later:
        status = await running(stack, handle)
        assert status.attempts == 1 and status.offering is not None and status.offering.zone == "2"
        assert [(s.offering.zone, s.code) for s in status.offering_attempts[-1].skipped] == [
            ("1", "ZonalAllocationFailed")]
    assert vm_puts(stack) == 2 + 3  # not one of them asked Azure for zone 1
    assert failed_vm_puts(stack) == 1
    await delete_all(stack, first, *later)


async def test_every_offering_refused_waits_for_the_first_refusal_to_end_or_a_reconcile(stack: Stack) -> None:
    out = [stack.emulator.make_unavailable(zone=zone) for zone in ("1", "2")]
    began = await stack.env.get_current_time()
    first = await start(stack, zonal_spec(stack, "vm1", timeouts={"creation": "2h"}))
    waiting = await wait_for(stack.env, first, lambda s: s.phase == Phase.CRASH_LOOP_BACK_OFF
                             and s.last_operation is not None and "every offering" in s.last_operation.description)
    assert waiting.attempts == 2 and vm_puts(stack) == 2
    assert [(a.offering.zone, a.refused) for a in waiting.offering_attempts] == [
        ("1", "ZonalAllocationFailed"), ("2", "ZonalAllocationFailed")]
    # It waits for zone 1's refusal (1 h, the first to end), not the 10-minute backoff of old.
    assert waiting.next_retry_at is not None
    assert timedelta(minutes=59) < waiting.next_retry_at - began <= timedelta(hours=1, seconds=5), waiting.next_retry_at

    # A second machine asks the memory, finds every offering refused and waits without asking Azure.
    second = await start(stack, zonal_spec(stack, "vm2"))
    await wait_for(stack.env, second, in_phase(Phase.CRASH_LOOP_BACK_OFF))
    assert vm_puts(stack) == 2
    # Capacity is back and an operator knows it: reconcile retries at once.
    for entry in out:
        stack.emulator.restore_capacity(entry)
    await second.signal("reconcile")
    back = await running(stack, second)
    assert back.offering is not None and back.offering.zone == "1" and vm_puts(stack) == 3
    assert (await status_of(first)).phase == Phase.CRASH_LOOP_BACK_OFF  # still waiting: nobody told it

    # The first machine tries again by itself when zone 1's refusal ends, not before (its creation timeout
    # is 2 h: with the default 20 min it would have failed, cleaned up, and waited for a reconcile).
    done = await wait_for(stack.env, first, in_phase(Phase.RUNNING, Phase.FAILED), step=timedelta(minutes=1))
    assert done.phase == Phase.RUNNING and done.attempts == 3
    third = next(op.updated_at for op in done.recent_operations if op.description.startswith("attempt 3"))
    assert waiting.next_retry_at <= third < waiting.next_retry_at + timedelta(minutes=2)
    await delete_all(stack, first, second)


def spot_spec(stack: Stack, name: str, fallback: bool) -> dict[str, Any]:
    return spec_dict(name=name, subnet_id=stack.emulator.subnet_id, priority="Spot",
                     spot={"eviction_policy": "Delete", "fallback_to_regular": fallback})


async def test_spot_capacity_error_becomes_regular_only_with_the_flag(stack: Stack) -> None:
    stack.emulator.make_unavailable(priority="Spot")
    allowed = await start(stack, spot_spec(stack, "spot1", fallback=True))
    status = await running(stack, allowed)
    assert status.offering is not None and status.offering.describe() == "Standard_D2s_v3 regional"
    assert (await vm_of(stack, "spot1")).priority in (None, "Regular")

    # Without the flag a Spot machine never becomes a regular VM: it waits for Spot capacity.
    careful = await start(stack, spot_spec(stack, "spot2", fallback=False))
    waiting = await wait_for(stack.env, careful, lambda s: s.phase == Phase.CRASH_LOOP_BACK_OFF
                             and s.last_operation is not None and "every offering" in s.last_operation.description)
    assert waiting.attempts == 0  # the memory knew: Spot of that size was refused, and nothing else is allowed
    assert [s.offering.describe() for s in waiting.offering_attempts] == []
    assert not any(r["name"] == "spot2" for r in stack.emulator.resources("virtualMachines"))
    await delete_all(stack, allowed, careful)


async def test_an_evicted_spot_vm_comes_back_regular_with_the_flag_keeping_its_data(stack: Stack) -> None:
    """Without the flag an evicted Spot VM is started again as Spot (test_stopped_vm_is_started.py)."""
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, priority="Spot",
                     spot={"eviction_policy": "Deallocate", "fallback_to_regular": True})
    handle = await start(stack, spec)
    spot = await running(stack, handle)
    assert spot.offering is not None and spot.offering.describe() == "Standard_D2s_v3 regional (Spot)"
    data = unique_id(stack)
    assert stack.emulator.evict(vm(stack)["id"])["evictionPolicy"] == "Deallocate"
    await handle.signal("reconcile")  # what the fleet sweep sends when it sees the VM deallocated
    regular = await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and s.offering is not None
                             and s.offering.describe() == "Standard_D2s_v3 regional")
    assert (await vm_of(stack, "vm1")).priority in (None, "Regular")
    assert unique_id(stack) == data  # the data disk was kept and attached to the regular VM
    assert any("Spot VM evicted" in op.description for op in regular.recent_operations)
    await delete_all(stack, handle)
    await record_history(handle, "spot_evicted_recreated_regular")


async def test_machines_started_together_spend_one_refusal_on_a_dry_zone(stack: Stack) -> None:
    """They claim offerings from the memory: one probes zone 1, one zone 2, the others wait for the outcome."""
    stack.emulator.make_unavailable(zone="1")
    handles = [await start(stack, zonal_spec(stack, f"vm{n}")) for n in range(1, 6)]
    for handle in handles:
        status = await running(stack, handle)
        assert status.offering is not None and status.offering.zone == "2"
    assert failed_vm_puts(stack) == 1 and vm_puts(stack) == 6
    await delete_all(stack, *handles)
