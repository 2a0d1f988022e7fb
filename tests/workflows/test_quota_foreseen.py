"""Foreseen quota with the real driver and the emulator: the memory reads the compute usages once for the fleet,
counts what it hands out, and no VM PUT is refused for a quota the usages showed full.

The quota is the emulator's (`/_emulator/quota`): a VM PUT over it is refused 409 OperationNotAllowed, as Azure
does, and each refusal counts as a hit of the entry, beside the emulator's count of failed VM PUTs.
"""

from datetime import timedelta

from temporalio.client import WorkflowHandle

from models.offerings_memory import offerings_workflow_id
from models.status import MachineStatus, Phase
from tests.workflows.helpers import record_history, spec_dict, status_of, wait_for
from tests.workflows.stack import Stack
from tests.workflows.test_capacity_fallback import delete_all, failed_vm_puts, start, vm_puts

FAMILY = "standardDSv3Family"  # of Standard_D2s_v3, the test spec's size: 2 vCPUs


def quota_refusals(stack: Stack) -> int:
    """VM PUTs Azure refused for quota: the hits of every quota entry (each is one 409 OperationNotAllowed)."""
    return sum(entry["hits"] for entry in stack.emulator.quotas())


def usage_reads(stack: Stack) -> int:
    return stack.emulator.requests()["by_operation"].get("usages.list", 0)


def settled(status: MachineStatus) -> bool:
    """Running, or waiting (Pending: nothing failed) because no offering has quota left."""
    return status.phase == Phase.RUNNING or (status.phase == Phase.PENDING and bool(status.waiting_for_quota))


async def settle(stack: Stack, handles: list[WorkflowHandle]) -> list[MachineStatus]:
    return [await wait_for(stack.env, handle, settled, step=timedelta(seconds=5)) for handle in handles]


async def test_five_machines_on_a_quota_for_four_run_four_and_the_fifth_waits_with_the_reason(stack: Stack) -> None:
    entry = stack.emulator.set_quota(8, family=FAMILY)
    handles = [await start(stack, spec_dict(f"vm{n}", subnet_id=stack.emulator.subnet_id)) for n in range(1, 6)]
    statuses = await settle(stack, handles)
    assert sorted(s.phase for s in statuses) == [Phase.PENDING] + [Phase.RUNNING] * 4
    waiting = next(h for h, s in zip(handles, statuses, strict=True) if s.phase == Phase.PENDING)
    status = await status_of(waiting)
    assert status.last_operation is not None
    assert status.last_operation.description.startswith(f"waiting for quota: {FAMILY} 8 of 8 vCPUs in use")
    assert status.waiting_for_quota.endswith("(Standard_D2s_v3 needs 2)")
    assert status.attempts == 0 and vm_puts(stack) == 4  # the fifth never asked Azure
    assert (quota_refusals(stack), failed_vm_puts(stack)) == (0, 0)
    assert usage_reads(stack) == 1  # one reading for the whole fleet

    # Quota raised: the next reading (the memory's, at most AZMC_QUOTA_READ_EVERY old) shows room.
    stack.emulator.clear_quota(entry)
    stack.emulator.set_quota(10, family=FAMILY)
    done = await wait_for(stack.env, waiting, lambda s: s.phase == Phase.RUNNING, step=timedelta(seconds=30),
                          virtual_limit=timedelta(minutes=10))
    assert done.attempts == 1 and vm_puts(stack) == 5
    assert (quota_refusals(stack), failed_vm_puts(stack)) == (0, 0)
    assert usage_reads(stack) == 2
    await delete_all(stack, *handles)
    memory = offerings_workflow_id(stack.emulator.subscription_id, spec_dict("vm1")["location"])
    await record_history(stack.env.client.get_workflow_handle(memory), "offerings_memory_foresees_quota")


async def test_a_size_over_quota_is_skipped_for_the_next_with_the_reason_shown(stack: Stack) -> None:
    stack.emulator.set_quota(0, family=FAMILY)
    spec = spec_dict("vm1", subnet_id=stack.emulator.subnet_id, vm_sizes=["Standard_D2s_v3", "Standard_D2s_v5"])
    spec.pop("vm_size")
    handle = await start(stack, spec)
    status = await wait_for(stack.env, handle, lambda s: s.phase in (Phase.RUNNING, Phase.FAILED))
    assert status.phase == Phase.RUNNING and status.attempts == 1
    assert status.offering is not None and status.offering.vm_size == "Standard_D2s_v5"
    (attempt,) = status.offering_attempts
    (skipped,) = attempt.skipped
    assert skipped.reason == f"quota {FAMILY} 0 of 0 vCPUs in use, 2 more needed"
    assert skipped.describe(skipped.refused_at).startswith(f"Standard_D2s_v3 regional: quota {FAMILY} 0 of 0 vCPUs")
    assert (quota_refusals(stack), failed_vm_puts(stack)) == (0, 0)
    await delete_all(stack, handle)
