"""A capacity refusal reaches the shared memory before the failed attempt is compensated.

Compensating can take minutes (Azure keeps a failed VM's NIC for 180 s); machines that start meanwhile
must already skip the refused offering. Real driver, emulator and `Offerings` workflow, as in
test_capacity_fallback.py.
"""

from models.status import Phase
from tests.workflows.helpers import in_phase, status_of, wait_for
from tests.workflows.stack import Stack
from tests.workflows.test_capacity_fallback import delete_all, failed_vm_puts, running, start, vm_puts, zonal_spec

NIC_HELD = "Network Interface vm2-nic is used by existing resource vm2. In order to delete the network " \
           "interface, it must be dissociated from the resource."


async def test_a_machine_started_during_a_slow_compensation_skips_the_refused_zone(stack: Stack) -> None:
    # Zone 1 is proven (a VM runs there, so everyone may try it at once), then runs dry.
    proof = await start(stack, zonal_spec(stack, "vm1"))
    proven = await running(stack, proof)
    assert proven.offering is not None and proven.offering.zone == "1"
    stack.emulator.make_unavailable(zone="1")
    # vm2's attempt in zone 1 is refused, and its compensation waits: Azure will not delete its NIC yet.
    held = stack.emulator.add_fault("networkInterfaces.delete", name="vm2-nic", status=400, code="NicInUse",
                                    message=NIC_HELD, times=-1)
    refused = await start(stack, zonal_spec(stack, "vm2"))
    compensating = await wait_for(stack.env, refused, lambda s: any("vm2-nic" in step.description
                                                                    for step in s.stalled))
    assert compensating.phase == Phase.CRASH_LOOP_BACK_OFF and compensating.attempts == 1
    assert failed_vm_puts(stack) == 1

    # Started while vm2 still compensates: the memory already knows zone 1 refused, so no PUT goes there.
    later = await start(stack, zonal_spec(stack, "vm3"))
    status = await running(stack, later)
    assert status.attempts == 1 and status.offering is not None and status.offering.zone == "2"
    assert [(s.offering.zone, s.code) for s in status.offering_attempts[-1].skipped] == [
        ("1", "ZonalAllocationFailed")]
    assert failed_vm_puts(stack) == 1
    assert any(step.description.endswith("vm2-nic") for step in (await status_of(refused)).stalled)

    # The NIC lets go: vm2's attempt is fully compensated and its next attempt runs in zone 2.
    stack.emulator.remove_fault(held)
    done = await wait_for(stack.env, refused, in_phase(Phase.RUNNING, Phase.FAILED))
    assert done.phase == Phase.RUNNING and done.attempts == 2
    assert done.offering is not None and done.offering.zone == "2"
    assert vm_puts(stack) == 4 and failed_vm_puts(stack) == 1
    await delete_all(stack, proof, refused, later)

