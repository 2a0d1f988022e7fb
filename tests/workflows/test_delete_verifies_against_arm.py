"""`delete` ends only when Azure itself has nothing of the machine: Resource Graph lags ARM, so a machine
the graph has not indexed yet (or no longer shows) is still found by direct reads and deleted."""

from models.activity_io import ListMachinesInput
from models.status import Phase
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

DATA_DISK = "vm1-data-0-data-disk"


async def test_delete_under_graph_lag_finds_and_deletes_the_surviving_data_disk(stack: Stack) -> None:
    stack.emulator.settings(index_lag_s=3600, time_scale=1)  # the graph shows the subscription of an hour ago
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    assert await stack.driver.list_machines(ListMachinesInput()) == []  # the graph has not seen the machine

    # The data disk cannot be set to go with the VM, so it outlives the VM's delete (deleteOption Detach):
    # only a direct read finds it, the graph never shows it.
    stack.emulator.add_fault("virtualMachines.patch", name="vm1", status=500, code="InternalServerError", times=-1)
    await handle.signal("delete", {"reason": "test done"})
    final = await handle.result()

    assert final.phase == Phase.DELETED and final.inventory.is_empty
    assert stack.machine_resources() == [], stack.machine_resources()
    assert any(op.description == f"delete disk {DATA_DISK}: done" for op in final.recent_operations)
    assert stack.emulator.requests()["by_operation"].get("disks.delete", 0) >= 1
