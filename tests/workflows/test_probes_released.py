"""A machine that stops trying an offering releases its probe: machines needing that offering go on at once
instead of waiting PROBE_FOR for an outcome that never comes, and `azmc offerings` shows who tries what.

The real driver against the emulator, the real `Offerings` workflow on the same time-skipping server, read
as `azmc offerings` reads it (cli/offerings.py).
"""

from datetime import timedelta

from temporalio.client import WorkflowHandle

from cli.offerings import current_probes, current_refusals
from models.offering_claims import PROBE_FOR, PROVEN_FOR, Probe
from models.status import MachineStatus, Phase
from tests.workflows.data_disks import RG, operator
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

WAITING = "waiting for another machine's attempt"


async def probes(stack: Stack) -> list[Probe]:
    now = await stack.env.get_current_time()
    return await current_probes(stack.env.client, stack.emulator.subscription_id, "westeurope", now)


async def no_probes_within(stack: Stack, limit: timedelta) -> None:
    """Let virtual time pass until the memory holds no probe; fails if one is still held after `limit`."""
    waited = timedelta(0)
    while held := await probes(stack):
        assert waited < limit, f"still held after {limit}: {held}"
        await stack.env.sleep(timedelta(seconds=10))
        waited += timedelta(seconds=10)


def attempt_began(status: MachineStatus, attempt: int) -> timedelta | None:
    return next((op.updated_at for op in status.recent_operations
                 if op.description.startswith(f"attempt {attempt}: trying")), None)


async def start(stack: Stack, name: str) -> WorkflowHandle:
    # One offering (one size, regional): a machine that needs it can only try it or wait for its prober.
    return await start_machine(stack.env.client, stack.task_queue, spec_dict(name, subnet_id=stack.emulator.subnet_id))


async def test_a_machine_deleted_mid_attempt_releases_its_probe_and_the_waiting_machine_goes_on(
        stack: Stack) -> None:
    # vm1's VM PUT hangs for 2 wall seconds: it is deleted while its attempt (the offering's probe) is in flight.
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=0, delay_s=2.0, times=1)
    prober = await start(stack, "vm1")
    await wait_for(stack.env, prober, lambda s: s.last_operation is not None
                   and "ensuring VM" in s.last_operation.description, step=timedelta(milliseconds=100))
    [probe] = await probes(stack)  # `azmc offerings` shows the probe and who holds it
    assert (probe.offering.describe(), probe.holder()) == ("Standard_D2s_v3 regional", f"machine/{RG}/vm1")
    began = probe.began()
    assert probe.until == began + PROBE_FOR

    waiter = await start(stack, "vm2")
    await wait_for(stack.env, waiter, lambda s: s.last_operation is not None
                   and WAITING in s.last_operation.description, step=timedelta(milliseconds=100))
    await prober.signal("delete", {"reason": "scale down"})
    assert (await prober.result()).phase == Phase.DELETED
    # Released when its deletion began, not PROBE_FOR later (vm2 may hold a probe of its own by now).
    assert [p for p in await probes(stack) if p.holder() == f"machine/{RG}/vm1"] == []
    await record_history(prober, "delete_mid_attempt_releases_probe")
    assert await current_refusals(stack.env.client, stack.emulator.subscription_id, "westeurope", began) == []

    running = await wait_for(stack.env, waiter, in_phase(Phase.RUNNING, Phase.FAILED))
    assert running.phase == Phase.RUNNING and running.attempts == 1, running.last_error
    first = attempt_began(running, 1)
    assert first is not None and first < began + PROBE_FOR, (first, began)  # it did not wait the probe out
    await waiter.signal("delete")
    await waiter.result()
    assert stack.emulator.resources("virtualMachines") == []


async def test_an_attempt_that_adopts_a_stopped_vm_that_will_not_start_releases_its_probe(stack: Stack) -> None:
    first = await start(stack, "vm1")
    await wait_for(stack.env, first, in_phase(Phase.RUNNING))
    await first.terminate("a workflow lost: its VM stays, and a new run adopts it")
    async with operator(stack) as azure:
        await (await azure.compute.virtual_machines.begin_deallocate(RG, "vm1")).result()
    stack.emulator.add_fault("virtualMachines.start", name="vm1", status=409, code="AllocationFailed",
                             stage="operation", times=-1)
    await stack.env.sleep(PROVEN_FOR + timedelta(minutes=1))  # the first run's success no longer proves the offering

    again = await start(stack, "vm1")  # claims the offering (a probe), finds the VM stopped, cannot start it
    unknown = await wait_for(stack.env, again, in_phase(Phase.UNKNOWN))
    assert "AllocationFailed" in unknown.last_error
    # No outcome to tell: released (at once, in the task that gave up), so no machine waits PROBE_FOR for it.
    await no_probes_within(stack, PROBE_FOR / 2)
    await again.signal("delete")
    await again.result()
    assert stack.machine_resources() == []
