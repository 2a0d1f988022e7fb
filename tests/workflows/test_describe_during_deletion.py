"""`azmc describe` during a deletion shows what Azure has now: a disk deleted beside a NIC that stalls is no
longer listed, and the view says when Azure told what it lists. The real driver against the emulator."""

from datetime import timedelta

from models.spec import MachineSpec
from models.status import Phase
from tests.activities.conftest import put_disk
from tests.workflows.data_disks import DATA_DISK, disk, operator
from tests.workflows.helpers import described, spec_dict, start_machine, status_of, wait_for
from tests.workflows.stack import Stack


async def test_describe_stops_listing_a_disk_deleted_while_a_nic_still_stalls(stack: Stack) -> None:
    # What a crash can leave: the NIC and a data disk; the NIC cannot be deleted for now.
    await stack.driver.ensure_nic(MachineSpec.model_validate(spec_dict(subnet_id=stack.emulator.subnet_id)))
    async with operator(stack) as azure:
        await put_disk(azure, DATA_DISK, {"azmc-machine": "vm1", "azmc-pool": "workers"})
    fault = stack.emulator.add_fault("networkInterfaces.delete", name="vm1-nic", status=400, code="NicInUse",
                                     message="Nic vm1-nic is in use by another operation", times=-1)
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id),
                                 start_signal="delete")
    read = await wait_for(stack.env, handle, lambda s: s.phase == Phase.TERMINATING and bool(s.stalled))
    assert read.inventory_at is not None and read.inventory.nic_names == ["vm1-nic"]

    # The disk is gone from Azure while the NIC keeps failing: the status says so before the next read.
    stalled = await wait_for(stack.env, handle, lambda s: disk(stack) is None
                             and DATA_DISK not in s.inventory.disk_names, step=timedelta(seconds=5),
                             virtual_limit=timedelta(minutes=10))
    assert stalled.phase == Phase.TERMINATING and [s.description for s in stalled.stalled] == ["delete NIC vm1-nic"]
    assert stalled.inventory.nic_names == ["vm1-nic"] and stalled.inventory.data_disks == []
    assert stalled.inventory_at is not None and stalled.inventory_at >= read.inventory_at
    inventory = described(stalled).split("Inventory", 1)[1].split("Recent operations")[0]
    assert DATA_DISK not in inventory and "NICs:  vm1-nic" in inventory and "disks: none" in inventory
    assert f"as Azure told it at {stalled.inventory_at:%H:%M:%S} UTC" in inventory

    stack.emulator.remove_fault(fault)
    final = await handle.result()
    assert final.phase == Phase.DELETED and final.inventory.is_empty and stack.machine_resources() == []
    assert (await status_of(handle)).inventory.is_empty
