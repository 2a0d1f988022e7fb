"""The driver side of data survival: find the data disks a gone VM left, attach them, start a stopped
VM, set what deleting the VM does to its data disks, tag what a failed create left."""

from typing import Any

import pytest
from azure.mgmt.compute import models as cm
from temporalio.exceptions import ApplicationError

from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import (
    DataDiskDeleteOptionInput,
    DeleteResourceInput,
    DeleteVmInput,
    EnsureVmInput,
    MachineRef,
)
from models.errors import ErrorType
from tests.activities.conftest import put_disk

RG = SEED_RESOURCE_GROUP
VM1 = MachineRef(resource_group=RG, name="vm1")
DATA = "vm1-0-data-disk"


def ops(emulator: Any) -> dict[str, int]:
    return {op: n for op, n in emulator.requests()["by_operation"].items() if not op.startswith("operations")}


def unique_id(emulator: Any, name: str = DATA) -> str:
    return next(r["uniqueId"] for r in emulator.resources("disks") if r["name"] == name)


async def test_vm_gone_find_vm_reads_the_data_disks_and_ensure_vm_attaches_them(
        driver, env, make_spec, create_machine, emulator) -> None:
    spec = make_spec()
    await create_machine(spec)
    before = unique_id(emulator)
    await env.run(driver.delete_vm, DeleteVmInput(machine=VM1))  # deleteOption Detach: the data disk stays
    found = await env.run(driver.find_vm, spec)
    assert not found.has_vm and found.disk_names == [DATA]
    [kept] = found.data_disks
    # Read from ARM's list of the machine's resources: by id (no uniqueId there; ensure_vm reads it).
    assert (kept.name, kept.lun) == (DATA, 0) and kept.id.endswith(f"/disks/{DATA}")
    nic_id = await env.run(driver.ensure_nic, spec)
    puts = ops(emulator).get("disks.patch", 0)
    again = await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id, attach=found.data_disks))
    assert again.vm_healthy and unique_id(emulator) == before
    assert [(d.name, d.unique_id, d.delete_option) for d in again.data_disks] == [(DATA, before, "Detach")]
    assert ops(emulator).get("disks.patch", 0) == puts  # the attached disk is ours; the new OS disk needs no tag


async def test_find_vm_ignores_a_disk_of_our_name_that_is_not_ours(driver, env, make_spec, sdk) -> None:
    await put_disk(sdk, DATA, {"team": "someone-else"})
    found = await env.run(driver.find_vm, make_spec())
    assert found.is_empty and found.data_disks == []


async def test_start_vm_starts_a_deallocated_vm_keeping_its_id_and_disks(
        driver, env, make_spec, create_machine, emulator, sdk) -> None:
    created = await create_machine(make_spec())
    before = unique_id(emulator)
    await (await sdk.compute.virtual_machines.begin_deallocate(RG, "vm1")).result()
    started = await env.run(driver.start_vm, VM1)
    assert started.provider_id == created.provider_id and started.vm_healthy
    vm = next(r for r in emulator.resources("virtualMachines"))
    assert vm["powerState"] == "running" and unique_id(emulator) == before
    starts = ops(emulator)["virtualMachines.start"]
    assert (await env.run(driver.start_vm, VM1)).vm_healthy  # running already: one GET, no second start
    assert ops(emulator)["virtualMachines.start"] == starts == 1


async def test_start_vm_without_capacity_is_capacity_exhausted(driver, env, make_spec, create_machine, emulator,
                                                               sdk) -> None:
    await create_machine(make_spec())
    await (await sdk.compute.virtual_machines.begin_deallocate(RG, "vm1")).result()
    emulator.add_fault("virtualMachines.start", name="vm1", status=409, code="AllocationFailed", stage="operation")
    with pytest.raises(ApplicationError) as caught:
        await env.run(driver.start_vm, VM1)
    assert caught.value.type == ErrorType.CAPACITY_EXHAUSTED and "AllocationFailed" in caught.value.message
    # Azure leaves it Failed and deallocated; the next start is what brings it back.
    assert (await env.run(driver.find_vm, make_spec())).vm_stopped
    assert (await env.run(driver.start_vm, VM1)).vm_healthy


async def test_start_vm_refuses_a_missing_or_foreign_vm(driver, env, make_spec, create_machine, sdk) -> None:
    with pytest.raises(ApplicationError) as missing:
        await env.run(driver.start_vm, VM1)
    assert missing.value.type == ErrorType.NOT_FOUND
    await create_machine(make_spec())
    await (await sdk.compute.virtual_machines.begin_update(RG, "vm1", cm.VirtualMachineUpdate(
        tags={"azmc-machine": "other"}))).result()
    with pytest.raises(ApplicationError) as foreign:
        await env.run(driver.start_vm, VM1)
    assert foreign.value.type == ErrorType.NOT_OWNED


async def test_data_disk_delete_option_is_set_with_one_patch_and_only_when_needed(
        driver, env, make_spec, create_machine, emulator, sdk) -> None:
    await create_machine(make_spec())
    before = unique_id(emulator)
    old = cm.DataDisk(lun=0, create_option="Attach", delete_option="Delete")  # as an older azmc made it
    update = cm.VirtualMachineUpdate(storage_profile=cm.StorageProfile(data_disks=[old]))
    await (await sdk.compute.virtual_machines.begin_update(RG, "vm1", update)).result()
    patches = ops(emulator)["virtualMachines.patch"]
    detach = DataDiskDeleteOptionInput(machine=VM1, delete_option="Detach")
    kept = await env.run(driver.set_data_disk_delete_option, detach)
    assert [(d.name, d.delete_option) for d in kept.data_disks] == [(DATA, "Detach")]
    assert ops(emulator)["virtualMachines.patch"] == patches + 1
    await env.run(driver.set_data_disk_delete_option, detach)  # already Detach: read, no PATCH
    assert ops(emulator)["virtualMachines.patch"] == patches + 1
    await env.run(driver.delete_vm, DeleteVmInput(machine=VM1, force=True))
    assert unique_id(emulator) == before  # the VM went, the data stayed
    assert (await env.run(driver.set_data_disk_delete_option, detach)).is_empty  # no VM: nothing to set


async def test_delete_option_delete_takes_the_data_disk_with_the_vm(
        driver, env, make_spec, create_machine, emulator) -> None:
    await create_machine(make_spec())
    doomed = await env.run(driver.set_data_disk_delete_option,
                           DataDiskDeleteOptionInput(machine=VM1, delete_option="Delete"))
    assert [d.delete_option for d in doomed.data_disks] == ["Delete"]
    await env.run(driver.delete_vm, DeleteVmInput(machine=VM1))
    assert emulator.resources("disks") == []


async def test_a_failed_create_tags_the_disks_it_left_so_they_can_be_deleted(
        driver, env, make_spec, emulator) -> None:
    spec = make_spec()
    nic_id = await env.run(driver.ensure_nic, spec)
    emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="AllocationFailed", stage="operation")
    with pytest.raises(ApplicationError):
        await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))
    tags = {r["name"]: r["tags"] for r in emulator.resources("disks")}
    assert tags[DATA].get("azmc-machine") == "vm1"
    await env.run(driver.delete_vm, DeleteVmInput(machine=VM1, force=True))
    await env.run(driver.delete_disk, DeleteResourceInput(machine=VM1, name=DATA))
    assert emulator.resources("disks") == []
