"""Accelerated networking from the size (issue 28): `accelerated_networking` null (the default) is what the
size supports, from the resource SKUs the shared offerings memory reads once per location for every machine;
explicit true skips a size without it before asking Azure, naming the field."""

from typing import Any

from models.status import Phase
from tests.support.arm_http import arm
from tests.workflows.helpers import in_phase, spec_dict, status_of, wait_for
from tests.workflows.stack import Stack
from tests.workflows.test_capacity_fallback import delete_all, failed_vm_puts, start, vm_puts


def sku_reads(stack: Stack) -> int:
    return stack.emulator.requests()["by_operation"].get("resourceSkus.list", 0)


def accelerated(stack: Stack, machine: str) -> Any:
    [nic] = [r for r in stack.emulator.resources("networkInterfaces") if r["name"] == f"{machine}-nic"]
    return arm(stack.emulator, "GET", nic["id"]).body["properties"]["enableAcceleratedNetworking"]


async def test_null_follows_the_size_with_one_sku_read_for_the_fleet(stack: Stack) -> None:
    sizes = {"vm1": "Standard_D2s_v3", "vm2": "Standard_B2s", "vm3": "Standard_D2s_v5", "vm4": "Standard_B2ms"}
    handles = [await start(stack, spec_dict(name, subnet_id=stack.emulator.subnet_id, vm_size=size))
               for name, size in sizes.items()]
    for handle in handles:
        await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    assert {name: accelerated(stack, name) for name in sizes} == {"vm1": True, "vm2": False, "vm3": True, "vm4": False}
    assert sku_reads(stack) == 1  # one reading of the location's SKUs for the four machines
    await delete_all(stack, *handles)


async def test_explicit_true_skips_a_size_without_it_for_one_with_it(stack: Stack) -> None:
    spec = spec_dict("vm1", subnet_id=stack.emulator.subnet_id, vm_sizes=["Standard_B2s", "Standard_D2s_v5"],
                     accelerated_networking=True)
    spec.pop("vm_size")
    handle = await start(stack, spec)
    status = await wait_for(stack.env, handle, lambda s: s.phase in (Phase.RUNNING, Phase.FAILED))
    assert status.phase == Phase.RUNNING and status.offering is not None
    assert status.offering.vm_size == "Standard_D2s_v5"
    (skipped,) = status.offering_attempts[0].skipped
    assert skipped.offering.vm_size == "Standard_B2s" and skipped.reason.startswith("accelerated_networking: ")
    assert accelerated(stack, "vm1") is True
    assert (vm_puts(stack), failed_vm_puts(stack)) == (1, 0)  # Azure never saw the size without it
    await delete_all(stack, handle)


async def test_explicit_true_on_a_size_without_it_is_refused_naming_the_field(stack: Stack) -> None:
    spec = spec_dict("vm1", subnet_id=stack.emulator.subnet_id, vm_size="Standard_B2s", accelerated_networking=True)
    handle = await start(stack, spec)
    status = await wait_for(stack.env, handle, lambda s: s.phase in (Phase.CRASH_LOOP_BACK_OFF, Phase.FAILED))
    status = await status_of(handle)
    assert status.last_operation is not None
    assert "accelerated_networking: Standard_B2s does not support accelerated networking" in \
        status.last_operation.description
    assert vm_puts(stack) == 0
    await delete_all(stack, handle)
