"""Chaos: 8 machines created under NIC and VM faults while the worker is SIGKILLed 5 times."""

import asyncio
import time

from temporalio.client import Client

from cli.machines import apply, request_delete
from models.naming import workflow_id
from tests.e2e.machines import assert_exactly_its_own, owned, phases_when_answered, spec, wait_phase
from tests.e2e.stack import STACK_CONVERTER, Stack, wait_until
from workers.settings import TASK_QUEUE

MACHINES = 8  # chaos-00..03 and chaos-10..13: each group meets its own VM fault
KILLS = 5


async def test_sigkilled_worker_leaves_every_machine_with_exactly_its_own_resources(stack: Stack) -> None:
    emulator = stack.emulator.control
    specs = [spec(f"chaos-{index // 4}{index % 4}", data_disks=index % 2) for index in range(MACHINES)]
    # NIC creation fails a few times; some VM creations fail at the operation stage, some at the request.
    # Until one VM of the offering runs, its attempts are probes, one at a time (models/offering_claims.py):
    # each failure here delays every machine by an attempt (10 in a row made runs last 150 s of the 200).
    emulator.add_fault(operation="networkInterfaces.put", name="chaos-*", status=500, times=8)
    emulator.add_fault(operation="virtualMachines.put", name="chaos-0*", status=500,
                       code="InternalExecutionError", stage="operation", times=5)  # fmt: skip
    emulator.add_fault(operation="virtualMachines.put", name="chaos-1*", status=503, times=4)
    emulator.add_fault(operation="networkInterfaces.delete", name="chaos-*", status=400, code="NicInUse", times=3)

    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    await asyncio.gather(*(apply(client, item, TASK_QUEUE) for item in specs))
    started = time.monotonic()
    kills_mid_creation = 0
    for kill in range(KILLS):
        worker = stack.worker.children[-1]
        # Each worker gets going and picks up work before it dies, so every kill interrupts something.
        wait_until(lambda worker=worker: "worker started" in worker.log_path.read_text(), 30, "the worker")
        await asyncio.sleep(0.6 + 0.3 * kill)
        current = await phases_when_answered(client, specs)
        not_running = [name for name, phase in current.items() if phase != "Running"]
        kills_mid_creation += bool(not_running)
        stack.worker.kill()
        stack.worker.start()
    assert kills_mid_creation >= 3, "the kills must land while machines are still being created"
    await wait_phase(client, specs, "Running", timeout_s=200)
    print(f"all Running {time.monotonic() - started:.1f}s after the first start")

    for item in specs:
        assert_exactly_its_own(emulator, item)
    vms = [r for r in emulator.resources() if r["type"].lower().endswith("virtualmachines")]
    assert len(vms) == MACHINES

    await asyncio.gather(*(request_delete(client, workflow_id(s.resource_group, s.name)) for s in specs))
    await wait_phase(client, specs, "Deleted", timeout_s=120)
    assert [r["name"] for r in emulator.resources() if r["name"].startswith("chaos-")] == []
    assert all(owned(emulator, item.name) == [] for item in specs)
