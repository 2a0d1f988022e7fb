"""read_inventory against the emulator: the contract that makes MCM's leftover-NIC bug impossible."""

from typing import Any

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.driver import AzureDriver
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP
from models.activity_io import DeleteResourceInput, EnsureVmInput, ListMachinesInput, MachineRef
from models.errors import ErrorType
from tests.activities.conftest import delete_vm_keeping_disks

VM1 = MachineRef(resource_group=SEED_RESOURCE_GROUP, name="vm1")


async def status(env: ActivityEnvironment, driver: AzureDriver, spec: Any) -> Any:
    return await env.run(driver.read_inventory, spec)


async def assert_nothing_exists(env: ActivityEnvironment, driver: AzureDriver, spec: Any) -> None:
    """An answer, not a failure: a clean deletion's history shows no failed activity."""
    inventory = await status(env, driver, spec)
    assert inventory.is_empty and not inventory.not_ours and not inventory.has_vm


async def test_nothing_is_the_empty_inventory(driver, env, make_spec) -> None:
    await assert_nothing_exists(env, driver, make_spec())


async def test_nic_only_is_a_partial_machine_not_a_vm(driver, env, make_spec) -> None:
    spec = make_spec()
    await env.run(driver.ensure_nic, spec)
    inventory = await status(env, driver, spec)
    assert inventory.provider_id == "" and inventory.node_name == ""
    assert inventory.nic_names == ["vm1-nic"] and inventory.disk_names == []
    assert not inventory.has_vm


async def test_disks_only(driver, env, make_spec, create_machine, sdk) -> None:
    spec = make_spec()
    await create_machine(spec)
    await delete_vm_keeping_disks(sdk, "vm1")  # the disks Azure made for the VM outlive it
    inventory = await status(env, driver, spec)
    assert not inventory.has_vm and inventory.nic_names == []
    # The OS disk, kept by whoever changed its deleteOption, is untagged: not azmc's, shown apart.
    assert inventory.disk_names == ["vm1-0-data-disk"] and inventory.not_ours == ["disk vm1-os-disk"]


async def test_vm_with_nic_and_disks(driver, env, make_spec, create_machine, emulator) -> None:
    spec = make_spec(data_disks=[{"lun": 0, "size_gb": 32}, {"lun": 3, "size_gb": 8, "name": "logs"}])
    await create_machine(spec)
    inventory = await status(env, driver, spec)
    assert inventory.provider_id == (
        f"azure:///subscriptions/{emulator.subscription_id}/resourceGroups/azmc-demo/providers/"
        "Microsoft.Compute/virtualMachines/vm1"
    )
    assert inventory.node_name == "vm1"
    assert inventory.vm_state.provisioning_state == "Succeeded"
    assert inventory.vm_state.power_state == "running"
    assert inventory.vm_healthy
    assert inventory.nic_names == ["vm1-nic"]
    assert inventory.disk_names == ["vm1-os-disk", "vm1-0-data-disk", "vm1-logs-3-data-disk"]


async def test_failed_vm_is_reported_with_its_nic_and_disks(driver, env, make_spec, emulator) -> None:
    spec = make_spec()
    emulator.add_fault(operation="virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                       message="Allocation failed. We do not have sufficient capacity.", stage="operation")
    nic_id = await env.run(driver.ensure_nic, spec)
    with pytest.raises(ApplicationError) as info:
        await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))
    assert info.value.type == ErrorType.CAPACITY_EXHAUSTED
    inventory = await status(env, driver, spec)
    assert inventory.has_vm and inventory.vm_failed and not inventory.vm_healthy
    assert inventory.nic_names == ["vm1-nic"]


async def test_similar_names_are_never_mixed(driver, env, make_spec, create_machine) -> None:
    vm10 = make_spec("vm10")
    await create_machine(vm10)
    vm1 = make_spec("vm1")
    await assert_nothing_exists(env, driver, vm1)
    await env.run(driver.ensure_nic, vm1)
    inventory = await status(env, driver, vm1)
    assert inventory.nic_names == ["vm1-nic"] and inventory.disk_names == [] and not inventory.has_vm
    inventory10 = await status(env, driver, vm10)
    assert inventory10.nic_names == ["vm10-nic"] and "vm1-nic" not in inventory10.nic_names


async def test_leftover_under_an_old_name_is_found_by_tag(driver, env, make_spec, make_disk) -> None:
    spec = make_spec()
    await make_disk("vm1-scratch-7-data-disk", {"azmc-machine": "vm1"})  # from an older spec
    inventory = await status(env, driver, spec)
    assert inventory.disk_names == ["vm1-scratch-7-data-disk"]


async def test_resource_without_our_tag_is_not_ours(driver, env, make_spec, make_disk, emulator) -> None:
    spec = make_spec()
    await make_disk("vm1-os-disk", {"owner": "someone-else"})
    inventory = await status(env, driver, spec)  # not part of the machine; shown as left alone
    assert inventory.is_empty and inventory.not_ours == ["disk vm1-os-disk"]
    with pytest.raises(ApplicationError) as info:
        await env.run(driver.delete_disk, DeleteResourceInput(machine=VM1, name="vm1-os-disk"))
    assert info.value.type == ErrorType.NOT_OWNED and info.value.non_retryable
    assert [r["name"] for r in emulator.resources("disks")] == ["vm1-os-disk"]


async def test_graph_lag_never_hides_a_deterministic_resource(driver, env, make_spec, emulator) -> None:
    emulator.settings(index_lag_s=3600, time_scale=1)
    spec = make_spec()
    await env.run(driver.ensure_nic, spec)
    assert await env.run(driver.list_machines, ListMachinesInput()) == []  # the graph has not seen it yet
    inventory = await status(env, driver, spec)
    assert inventory.nic_names == ["vm1-nic"]


async def test_vm_present_costs_one_request(driver, env, make_spec, create_machine) -> None:
    spec = make_spec()
    await create_machine(spec)
    driver.reset_request_counts()
    await status(env, driver, spec)
    assert driver.request_counts() == {"virtualMachines.get": 1}


async def test_foreign_nic_with_our_name_is_never_touched(driver, env, make_spec, sdk, emulator) -> None:
    from azure.mgmt.network import models as nm

    spec = make_spec()
    foreign = nm.NetworkInterface(location=SEED_LOCATION, tags={"team": "db"}, ip_configurations=[
        nm.NetworkInterfaceIPConfiguration(name="ip", subnet=nm.Subnet(id=emulator.subnet_id))])
    nics = sdk.network.network_interfaces
    await (await nics.begin_create_or_update(SEED_RESOURCE_GROUP, "vm1-nic", foreign)).result()
    inventory = await status(env, driver, spec)  # not ours, so not part of the machine
    assert inventory.is_empty and inventory.not_ours == ["NIC vm1-nic"]
    for attempt in (env.run(driver.ensure_nic, spec),
                    env.run(driver.delete_nic, DeleteResourceInput(machine=VM1, name="vm1-nic"))):
        with pytest.raises(ApplicationError) as info:
            await attempt
        assert info.value.type == ErrorType.NOT_OWNED and info.value.non_retryable
    [nic] = emulator.resources("networkInterfaces")
    assert nic["tags"] == {"team": "db"}


async def test_leftover_nic_never_passes_for_a_machine_and_is_reused(driver, env, make_spec, emulator) -> None:
    """MCM's bug: a NIC left by a failed create was reported as the machine. Here it is a partial machine,
    creation proceeds, and the NIC is reused rather than duplicated."""
    spec = make_spec()
    await env.run(driver.ensure_nic, spec)
    leftover = await status(env, driver, spec)
    assert leftover.provider_id == "" and not leftover.vm_healthy and leftover.nic_names == ["vm1-nic"]
    nic_id = await env.run(driver.ensure_nic, spec)
    inventory = await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))
    assert inventory.vm_healthy and inventory.nic_names == ["vm1-nic"]
    assert emulator.requests()["by_operation"]["networkInterfaces.put"] == 1
    assert [r["name"] for r in emulator.resources("networkInterfaces")] == ["vm1-nic"]


async def test_find_vm_sees_only_a_vm_and_costs_one_request(
    driver, env, make_spec, create_machine, emulator
) -> None:
    """Creation's cheap check: a leftover NIC is not a VM, and the answer is one GET; only while there is
    no VM one ARM list of the machine's resources more, whatever the number of data disks (a re-created
    VM must attach the ones that exist)."""
    bare = make_spec(data_disks=[])
    await env.run(driver.ensure_nic, bare)
    before = emulator.requests()["total"]
    found = await env.run(driver.find_vm, bare)
    assert found.is_empty and not found.has_vm
    assert emulator.requests()["total"] - before == 2
    spec = make_spec(data_disks=[{"lun": 0, "size_gb": 8}, {"lun": 1, "size_gb": 8}])
    before = emulator.requests()["total"]
    assert (await env.run(driver.find_vm, spec)).is_empty
    assert emulator.requests()["total"] - before == 2
    spec = make_spec()

    await create_machine(spec)
    found = await env.run(driver.find_vm, spec)
    assert found.has_vm and found.node_name == "vm1"
    assert found.nic_names == ["vm1-nic"] and found.disk_names == ["vm1-os-disk", "vm1-0-data-disk"]
    assert [(d.name, d.lun, d.delete_option) for d in found.data_disks] == [("vm1-0-data-disk", 0, "Detach")]
