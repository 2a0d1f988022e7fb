"""A VM that must really be re-created (Failed, deleted out of band) keeps its data disks: the new VM
attaches them (same uniqueId); only a disk the same failed attempt created empty is ever compensated."""

from datetime import timedelta

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute import models as cm

from models.status import Phase
from tests.activities.conftest import put_disk
from tests.workflows.data_disks import DATA_DISK, RG, descriptions, disk, operator, shown_unique_ids, unique_id, vm
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

KEPT = f"re-created the VM, kept data disks {DATA_DISK}"


def _disk_deletes(stack: Stack) -> int:
    return stack.emulator.requests()["by_operation"].get("disks.delete", 0)


async def _fail_the_vm(stack: Stack) -> None:
    """A failed update leaves a VM Failed (Azure's way to get there; it still runs)."""
    stack.emulator.add_fault("virtualMachines.patch", name="vm1", status=500, code="InternalExecutionError",
                             stage="operation", times=1)
    async with operator(stack) as azure:
        update = cm.VirtualMachineUpdate(hardware_profile=cm.HardwareProfile(vm_size="Standard_D2s_v3"))
        with pytest.raises(HttpResponseError):
            await (await azure.compute.virtual_machines.begin_update(RG, "vm1", update)).result()
    assert vm(stack)["provisioningState"] == "Failed"


async def _delete_and_check_empty(stack: Stack, handle) -> None:
    await handle.signal("delete")
    final = await handle.result()
    assert final.phase == Phase.DELETED and final.inventory.is_empty
    assert stack.machine_resources() == []  # `delete`, and only `delete`, deletes the data disk too


async def test_failed_vm_is_re_created_with_its_data_disk(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"health": "5m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    before = unique_id(stack)
    await _fail_the_vm(stack)
    await handle.signal("reconcile")
    unknown = await wait_for(stack.env, handle, in_phase(Phase.UNKNOWN))
    assert "Failed" in unknown.last_error
    again = await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and KEPT in descriptions(s),
                           step=timedelta(seconds=30))
    assert vm(stack)["provisioningState"] == "Succeeded"
    assert unique_id(stack) == before and disk(stack)["diskState"] == "Attached"
    assert shown_unique_ids(again) == {DATA_DISK: before}
    assert _disk_deletes(stack) == 0
    await _delete_and_check_empty(stack, handle)
    await record_history(handle, "failed_vm_recreated_keeping_data_disk")


async def test_vm_deleted_out_of_band_is_re_created_with_its_detached_data_disk(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"health": "5m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    before = unique_id(stack)
    async with operator(stack) as azure:
        await (await azure.compute.virtual_machines.begin_delete(RG, "vm1")).result()
    assert vm(stack) is None and disk(stack)["diskState"] == "Unattached"  # deleteOption Detach kept it
    await handle.signal("reconcile")
    await wait_for(stack.env, handle, in_phase(Phase.UNKNOWN))
    again = await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and KEPT in descriptions(s),
                           step=timedelta(seconds=30))
    assert unique_id(stack) == before and disk(stack)["diskState"] == "Attached"
    assert shown_unique_ids(again) == {DATA_DISK: before}
    await _delete_and_check_empty(stack, handle)


async def test_vm_of_an_older_azmc_gets_detach_before_it_is_deleted(stack: Stack) -> None:
    """azmc before this change created data disks with deleteOption Delete: a recovery must not lose them."""
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"health": "5m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    before = unique_id(stack)
    async with operator(stack) as azure:  # what the older azmc left: deleteOption Delete on the data disk
        old = cm.DataDisk(lun=0, create_option="Attach", delete_option="Delete")
        update = cm.VirtualMachineUpdate(storage_profile=cm.StorageProfile(data_disks=[old]))
        await (await azure.compute.virtual_machines.begin_update(RG, "vm1", update)).result()
        stored = await azure.compute.virtual_machines.get(RG, "vm1")
        assert stored.storage_profile.data_disks[0].delete_option == "Delete"
    await _fail_the_vm(stack)
    await handle.signal("reconcile")
    again = await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and KEPT in descriptions(s),
                           step=timedelta(seconds=30))
    assert any("setting Detach first" in d for d in descriptions(again))
    assert unique_id(stack) == before
    await _delete_and_check_empty(stack, handle)


async def test_compensation_deletes_only_the_data_disk_its_attempt_created(stack: Stack) -> None:
    # Two zones: zone 1 refuses once, zone 2 is tried at once after the compensation.
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, zones=["1", "2"],
                     data_disks=[{"name": "data", "lun": 0, "size_gb": 8}, {"name": "logs", "lun": 1, "size_gb": 8}])
    async with operator(stack) as azure:  # data from before: a disk of this machine that exists already
        await put_disk(azure, DATA_DISK, {"azmc-machine": "vm1", "azmc-pool": "workers"})
    before = unique_id(stack)
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="ZonalAllocationFailed",
                             stage="operation", times=1)
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    compensated = await wait_for(stack.env, handle, lambda s: any("next offering at once" in op.description
                                                                  for op in s.recent_operations))
    # The failed attempt created vm1-logs-1-data-disk empty: compensated (before the next attempt). The
    # existing disk: kept.
    assert any(op.description == "delete disk vm1-logs-1-data-disk: done" for op in compensated.recent_operations)
    assert not any("delete disk vm1-data-0-data-disk" in op.description for op in compensated.recent_operations)
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING), step=timedelta(seconds=30))
    assert running.attempts == 2
    assert unique_id(stack) == before and disk(stack)["diskState"] == "Attached"
    assert disk(stack, "vm1-logs-1-data-disk")["diskState"] == "Attached"
    await _delete_and_check_empty(stack, handle)


async def test_creation_timeout_keeps_the_data_disk_and_reconcile_attaches_it(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"health": "5m", "creation": "15m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    before = unique_id(stack)
    async with operator(stack) as azure:
        await (await azure.compute.virtual_machines.begin_delete(RG, "vm1")).result()
    fault = stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                                     stage="operation", times=-1)
    await handle.signal("reconcile")
    failed = await wait_for(stack.env, handle, lambda s: s.phase == Phase.FAILED and "creation timed out" in
                            (s.last_operation.description if s.last_operation else ""), step=timedelta(seconds=30))
    assert f"nothing left in Azure but the data disks {DATA_DISK} (kept)" in failed.last_operation.description
    assert unique_id(stack) == before and [r["type"].split("/")[-1] for r in stack.machine_resources()] == ["disks"]
    assert failed.inventory.disk_names == [DATA_DISK]
    stack.emulator.remove_fault(fault)
    await handle.signal("reconcile")  # capacity is back: a fresh creation, with the data
    running = await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and KEPT in descriptions(s),
                             step=timedelta(seconds=30))
    assert unique_id(stack) == before and shown_unique_ids(running) == {DATA_DISK: before}
    await _delete_and_check_empty(stack, handle)
