"""A machine's data survives everything but `delete`, on the real stack (dev server, emulator, `azmc worker`):
a VM deallocated out of band is started again, and a VM deleted out of band is re-created with the same
data disk (Azure's `uniqueId` unchanged)."""

import asyncio
from typing import Any

from temporalio.client import Client, WorkflowHandle

from cli import machines
from models.naming import workflow_id
from models.spec import MachineSpec
from models.status import MachineStatus
from tests.e2e.machines import running, spec, wait_phase
from tests.e2e.stack import Stack
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import sdk_clients


def _azure(stack: Stack) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in stack.emulator.control.resources()}


async def _history(handle: WorkflowHandle[Any, Any]) -> list[str]:
    status = await handle.query("status", result_type=MachineStatus)
    return [op.description for op in status.recent_operations]


async def _reconcile_until_running(client: Client, handle: WorkflowHandle[Any, Any], item: MachineSpec) -> None:
    await handle.signal("reconcile")
    await asyncio.sleep(1)
    await wait_phase(client, [item], "Running", timeout_s=90)


def test_deallocated_vm_is_started_and_deleted_vm_recreated_with_the_same_data_disk(stack: Stack) -> None:
    # A short health timeout: the out-of-band delete is re-created within seconds, not 10 minutes.
    item = MachineSpec.model_validate({**spec("keeps-data", data_disks=1).model_dump(mode="json"),
                                       "timeouts": {"health": "1s"}})
    data_disk = item.all_disk_names()[1]
    sdk = sdk_clients(EmulatorHandle(stack.emulator.url))

    async def run() -> None:
        client = await running(stack, item)
        handle = client.get_workflow_handle(workflow_id(item.resource_group, item.name))
        before = _azure(stack)

        sdk.compute.virtual_machines.begin_deallocate(item.resource_group, item.name).result()
        await _reconcile_until_running(client, handle, item)
        after_start = _azure(stack)
        assert after_start[item.name]["id"] == before[item.name]["id"]
        assert after_start[data_disk]["uniqueId"] == before[data_disk]["uniqueId"]
        assert any("started the deallocated VM" in line for line in await _history(handle))

        sdk.compute.virtual_machines.begin_delete(item.resource_group, item.name).result()
        assert data_disk in _azure(stack)  # created with deleteOption Detach: the VM's delete leaves it
        await _reconcile_until_running(client, handle, item)
        recreated = _azure(stack)
        assert recreated[data_disk]["uniqueId"] == before[data_disk]["uniqueId"]
        assert any(f"kept data disks {data_disk}" in line for line in await _history(handle))

        await machines.request_delete(client, handle.id)
        await wait_phase(client, [item], "Deleted", timeout_s=90)
        assert not [name for name in _azure(stack) if name.startswith(item.name)]

    try:
        asyncio.run(run())
    finally:
        sdk.close()
