"""deallocate_vm (a preserved machine): Azure releases the compute, the VM, its NIC and disks stay."""

from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import DeleteVmInput, MachineRef

RG = SEED_RESOURCE_GROUP


async def test_deallocate_keeps_the_vm_and_its_disks_and_is_idempotent(driver, env, make_spec, create_machine,
                                                                       emulator) -> None:
    spec = make_spec()
    created = await create_machine(spec)
    ref = MachineRef(resource_group=RG, name="vm1")
    done = await env.run(driver.deallocate_vm, ref)
    assert done.vm_state.power_state == "deallocated" and done.provider_id == created.provider_id
    after = await env.run(driver.read_inventory, spec)
    assert after.vm_state.power_state == "deallocated"
    assert after.provider_id == created.provider_id and after.disk_names == created.disk_names
    assert after.nic_names == ["vm1-nic"]
    driver.reset_request_counts()
    again = await env.run(driver.deallocate_vm, ref)  # already deallocated: one GET, no second deallocate
    assert again.vm_state.power_state == "deallocated"
    assert driver.request_counts() == {"virtualMachines.get": 1}
    assert emulator.requests()["by_operation"].get("virtualMachines.deallocate") == 1


async def test_deallocate_of_a_stopped_vm_releases_it_and_a_missing_vm_is_nothing_to_do(
        driver, env, make_spec, create_machine) -> None:
    await create_machine(make_spec())
    ref = MachineRef(resource_group=RG, name="vm1")
    await env.run(driver.power_off, ref)  # stopped still holds (and bills) the compute
    assert (await env.run(driver.deallocate_vm, ref)).vm_state.power_state == "deallocated"
    await env.run(driver.delete_vm, DeleteVmInput(machine=ref))
    gone = await env.run(driver.deallocate_vm, ref)
    assert not gone.has_vm
