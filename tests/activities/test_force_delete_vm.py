"""azmc's VM delete force-deletes a VM that keeps no disk, and says forceDeletion=false for one that keeps a
disk (Microsoft: force delete only when the disks are not reused); asserted on what the emulator saw."""

from typing import Any

from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import DataDiskDeleteOptionInput, DeleteVmInput, MachineRef
from tests.activities.conftest import INSTALLATION, TOKEN
from tests.support.driver import emulator_driver

VM1 = MachineRef(resource_group=SEED_RESOURCE_GROUP, name="vm1")
DATA = "vm1-0-data-disk"


def seen(emulator: Any) -> list[tuple[str | None, bool]]:
    """Each VM DELETE the emulator accepted: its forceDeletion as sent, and whether it was forced."""
    return [(d["forceDeletion"], d["forced"]) for d in emulator.requests()["vm_deletions"]]


async def test_delete_force_deletes_a_vm_whose_disks_all_go(driver, env, make_spec, create_machine,
                                                             emulator) -> None:
    await create_machine(make_spec())
    await env.run(driver.set_data_disk_delete_option, DataDiskDeleteOptionInput(machine=VM1, delete_option="Delete"))
    await env.run(driver.delete_vm, DeleteVmInput(machine=VM1))
    assert seen(emulator) == [("true", True)]
    assert emulator.resources("disks") == [] and emulator.resources("networkInterfaces") == []


async def test_a_vm_keeping_its_data_disk_is_never_force_deleted(driver, env, make_spec, create_machine,
                                                                 emulator) -> None:
    # `force` too (a timed-out creation's cleanup asks for it): the kept disk wins.
    await create_machine(make_spec())
    await create_machine(make_spec(name="vm2"))
    await env.run(driver.delete_vm, DeleteVmInput(machine=VM1))
    await env.run(driver.delete_vm, DeleteVmInput(machine=MachineRef(resource_group=SEED_RESOURCE_GROUP, name="vm2"),
                                                  force=True))
    assert seen(emulator) == [("false", False), ("false", False)]
    assert {d["name"]: d["diskState"] for d in emulator.resources("disks")} == {
        DATA: "Unattached", "vm2-0-data-disk": "Unattached"}


async def test_force_delete_vms_off_sends_false_even_when_every_disk_goes(driver, env, make_spec, create_machine,
                                                                         emulator) -> None:
    # Without forceDeletion Azure would force it anyway (its default since api-version 2024-11-01).
    await create_machine(make_spec())
    await env.run(driver.set_data_disk_delete_option, DataDiskDeleteOptionInput(machine=VM1, delete_option="Delete"))
    async with emulator_driver(emulator, INSTALLATION, TOKEN, force_delete_vms=False) as unforced:
        await env.run(unforced.delete_vm, DeleteVmInput(machine=VM1))
    assert seen(emulator) == [("false", False)]
    assert emulator.resources("disks") == []


async def test_a_vm_azure_will_not_force_delete_is_deleted_without_force(driver, env, make_spec, create_machine,
                                                                         emulator) -> None:
    # Maintenance control (the emulator's fault stands for it): 409 OperationNotAllowed on the forced DELETE.
    emulator.add_fault("virtualMachines.forceDelete", name="vm1", status=409, code="OperationNotAllowed",
                       message="Operation 'ForceDelete' is not allowed on resource 'vm1' since it manages updates "
                               "using maintenance control.", times=-1)
    await create_machine(make_spec())
    await env.run(driver.set_data_disk_delete_option, DataDiskDeleteOptionInput(machine=VM1, delete_option="Delete"))
    await env.run(driver.delete_vm, DeleteVmInput(machine=VM1))
    assert emulator.requests()["failed_by_operation"]["virtualMachines.delete"] == 1  # the forced one
    assert seen(emulator) == [("false", False)]
    assert emulator.resources("virtualMachines") == [] and emulator.resources("disks") == []
