"""The Temporal dev server restarted mid-run on the same SQLite file: workflows continue to completion."""

import asyncio

from temporalio.client import Client

from cli.machines import apply, request_delete
from models.naming import workflow_id
from tests.e2e.machines import assert_exactly_its_own, owned, spec, wait_phase
from tests.e2e.stack import STACK_CONVERTER, Stack
from workers.settings import TASK_QUEUE


async def test_workflows_survive_a_server_restart(stack: Stack) -> None:
    emulator = stack.emulator.control
    specs = [spec(f"restart-{index}") for index in range(5)]
    # Slow VM creations, so the restart lands while the VMs are being created.
    emulator.add_fault(operation="virtualMachines.put", name="restart-*", status=0, delay_s=3, stage="operation",
                       times=len(specs))  # fmt: skip
    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    await asyncio.gather(*(apply(client, item, TASK_QUEUE) for item in specs))
    await asyncio.sleep(1.5)

    stack.server.restart()  # same port, same SQLite file; the worker process keeps running and reconnects

    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    await wait_phase(client, specs, "Running", timeout_s=120)
    for item in specs:
        assert_exactly_its_own(emulator, item)

    await asyncio.gather(*(request_delete(client, workflow_id(s.resource_group, s.name)) for s in specs))
    stack.server.restart()  # and once more while deleting
    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    await wait_phase(client, specs, "Deleted", timeout_s=120)
    assert all(owned(emulator, item.name) == [] for item in specs)
