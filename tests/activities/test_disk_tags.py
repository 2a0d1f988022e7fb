"""Disks a VM PUT creates implicitly that can outlive it (data disks, deleteOption Detach) get our ownership tags,
so one that outlives its VM is found and deleted; its OS disk (deleteOption Delete) goes with it, untagged."""

from typing import Any

import pytest
from azure.mgmt.compute import models as cm
from temporalio.exceptions import ApplicationError

from activities.vm_body import build_vm
from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import DeleteResourceInput, EnsureVmInput, MachineRef
from tests.activities.conftest import OWNER, delete_vm_keeping_disks, put_disk

RG = SEED_RESOURCE_GROUP


async def disk_tags(sdk: Any) -> dict[str, dict[str, str]]:
    return {d.name: d.tags or {} async for d in sdk.compute.disks.list_by_resource_group(RG)}


async def test_created_machine_tags_the_disks_that_outlive_its_vm(
        driver, env, make_spec, create_machine, sdk, emulator) -> None:
    spec = make_spec(tags={"team": "render"},
                     data_disks=[{"lun": 0, "size_gb": 32}, {"lun": 2, "size_gb": 8, "name": "logs"}])
    await create_machine(spec)
    ours = {"team": "render", "azmc-machine": "vm1", "azmc-owner": OWNER}
    assert await disk_tags(sdk) == {"vm1-os-disk": {}, "vm1-0-data-disk": ours, "vm1-logs-2-data-disk": ours}
    vm = await sdk.compute.virtual_machines.get(RG, "vm1")
    assert vm.storage_profile.os_disk.delete_option == "Delete"  # why the OS disk needs no tag
    counts = emulator.requests()["by_operation"]
    # A VM azmc just created names only disks its PUT made: tagged without reading them first (the disk
    # GETs are the SDK's final GET after a data disk's PATCH, for its uniqueId). No write for the OS disk.
    assert counts["disks.patch"] == 2 and counts["disks.get"] == 2


async def test_a_data_disk_left_by_an_out_of_band_vm_delete_is_found_and_deleted(
        driver, env, make_spec, create_machine, sdk) -> None:
    spec = make_spec()
    await create_machine(spec)
    # Whoever turns the OS disk's deleteOption to Detach and deletes the VM keeps that disk: untagged, it is shown
    # under the machine's name as not azmc's, and left alone.
    await delete_vm_keeping_disks(sdk, "vm1")
    inventory = await env.run(driver.read_inventory, spec)
    assert inventory.provider_id == "" and not inventory.has_vm
    assert inventory.disk_names == ["vm1-0-data-disk"] and inventory.not_ours == ["disk vm1-os-disk"]
    machine = MachineRef(resource_group=RG, name="vm1")
    await env.run(driver.delete_disk, DeleteResourceInput(machine=machine, name="vm1-0-data-disk"))
    assert await disk_tags(sdk) == {"vm1-os-disk": {}}
    left = await env.run(driver.read_inventory, spec)
    assert left.is_empty and left.not_ours == ["disk vm1-os-disk"]


async def test_adopted_vm_tags_its_untagged_disks_but_not_another_machines(
        driver, env, make_spec, sdk, emulator) -> None:
    spec = make_spec()
    nic_id = await env.run(driver.ensure_nic, spec)
    await put_disk(sdk, "shared-disk", {"azmc-machine": "other", "team": "x"})
    shared = await sdk.compute.disks.get(RG, "shared-disk")
    # Our VM made outside this attempt (as a crashed earlier attempt would), also naming another machine's disk.
    body = build_vm(spec, nic_id, {"azmc-machine": "vm1", "azmc-owner": OWNER})
    body.storage_profile.data_disks.append(cm.DataDisk(
        lun=5, create_option="Attach", managed_disk=cm.ManagedDiskParameters(id=shared.id)))
    await (await sdk.compute.virtual_machines.begin_create_or_update(RG, "vm1", body)).result()
    assert (await disk_tags(sdk))["vm1-os-disk"] == {}

    await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))
    ours = {"azmc-machine": "vm1", "azmc-owner": OWNER}
    assert await disk_tags(sdk) == {"vm1-os-disk": ours, "vm1-0-data-disk": ours,
                                    "shared-disk": {"azmc-machine": "other", "team": "x"}}
    assert emulator.requests()["by_operation"]["disks.patch"] == 2


async def test_failed_tagging_is_finished_by_the_retry(driver, env, make_spec, create_machine, sdk, emulator) -> None:
    spec = make_spec()
    emulator.add_fault("disks.patch", name="vm1-0-data-disk", status=500, code="InternalExecutionError",
                       stage="operation")
    with pytest.raises(ApplicationError):
        await create_machine(spec)
    assert (await disk_tags(sdk))["vm1-0-data-disk"] == {}
    await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=await env.run(driver.ensure_nic, spec)))
    ours = {"azmc-machine": "vm1", "azmc-owner": OWNER}
    assert (await disk_tags(sdk))["vm1-0-data-disk"] == ours
