"""Reads the driver spares because it just read or wrote the same thing (activities/read_cache.py), and the
guarantees that still hold: a VM changed since the read is never PATCHed blindly (If-Match, 412, GET
again), a driver that read nothing reads first."""

from collections.abc import Callable
from typing import Any

from azure.mgmt.compute import models as cm

from activities.driver import AzureDriver
from bench.arm_requests import DRAIN, LIMIT, MCM, POLL_LIMIT, is_read, lifecycle
from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import DataDiskDeleteOptionInput, DeleteVmInput, MachineRef
from models.spec import MachineSpec
from tests.activities.conftest import INSTALLATION, TOKEN
from tests.support.driver import emulator_driver

VM1 = MachineRef(resource_group=SEED_RESOURCE_GROUP, name="vm1")


async def test_a_clean_lifecycle_costs_at_most_mcms_requests(emulator: Any) -> None:
    steps = await lifecycle(emulator.url)
    every = sum((counts for label, counts in steps if label != DRAIN), start=type(steps[0][1])())
    requests = sum(n for op, n in every.items() if op != "operations.poll")
    assert requests <= LIMIT == MCM
    assert sum(n for op, n in every.items() if op != "operations.poll" and not is_read(op)) <= 6
    assert every["operations.poll"] <= POLL_LIMIT  # time scale 0 here: one poll per operation at most


async def test_a_vm_changed_since_the_read_is_read_again_before_its_patch(
    driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec], create_machine: Callable[..., Any],
    sdk: Any,
) -> None:
    spec = make_spec()
    await create_machine(spec)
    await env.run(driver.read_inventory, spec)  # remembered, with its etag
    await (await sdk.compute.virtual_machines.begin_update(  # someone changes it meanwhile
        SEED_RESOURCE_GROUP, "vm1", cm.VirtualMachineUpdate(tags={**(await sdk.compute.virtual_machines.get(
            SEED_RESOURCE_GROUP, "vm1")).tags, "changed": "yes"}))).result()
    driver.reset_request_counts()
    inventory = await env.run(driver.set_data_disk_delete_option,
                              DataDiskDeleteOptionInput(machine=VM1, delete_option="Delete"))
    assert [d.delete_option for d in inventory.data_disks] == ["Delete"]
    counts = driver.request_counts()
    # The first PATCH (If-Match on the remembered etag) was refused; one GET, one PATCH on the new etag.
    assert counts["virtualMachines.patch"] == 2 and counts["virtualMachines.get"] == 1
    vm = await sdk.compute.virtual_machines.get(SEED_RESOURCE_GROUP, "vm1")
    assert vm.tags["changed"] == "yes" and vm.storage_profile.data_disks[0].delete_option == "Delete"


async def test_after_a_read_the_patch_and_the_delete_need_no_get_and_what_is_left_is_one_list(
    driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec], create_machine: Callable[..., Any],
) -> None:
    spec = make_spec()
    await create_machine(spec)
    await env.run(driver.read_inventory, spec)
    driver.reset_request_counts()
    await env.run(driver.set_data_disk_delete_option, DataDiskDeleteOptionInput(machine=VM1, delete_option="Delete"))
    await env.run(driver.delete_vm, DeleteVmInput(machine=VM1))
    assert driver.request_counts() == {"virtualMachines.patch": 1, "virtualMachines.delete": 1,
                                       "operations.poll": driver.request_counts().get("operations.poll", 0)}
    driver.reset_request_counts()
    gone = await env.run(driver.read_inventory, spec)  # nothing of the machine is left, says ARM's own list
    assert gone.is_empty and not gone.not_ours
    assert driver.request_counts() == {"resources.list": 1}


async def test_a_driver_that_read_nothing_reads_before_it_deletes(
    emulator: Any, env: Any, make_spec: Callable[..., MachineSpec], create_machine: Callable[..., Any],
) -> None:
    await create_machine(make_spec())
    async with emulator_driver(emulator, INSTALLATION, TOKEN) as other_worker:
        await env.run(other_worker.delete_vm, DeleteVmInput(machine=VM1))
        assert other_worker.request_counts()["virtualMachines.get"] == 1
        assert other_worker.request_counts()["virtualMachines.delete"] == 1


async def test_the_drain_after_the_delete_read_is_one_post(
    driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec], create_machine: Callable[..., Any],
    sdk: Any,
) -> None:
    spec = make_spec()
    await create_machine(spec)
    await env.run(driver.read_inventory, spec)  # running, seconds ago
    driver.reset_request_counts()
    await env.run(driver.power_off, VM1)
    assert {op: n for op, n in driver.request_counts().items() if op != "operations.poll"} == {
        "virtualMachines.powerOff": 1}
    view = await sdk.compute.virtual_machines.instance_view(SEED_RESOURCE_GROUP, "vm1")
    assert "PowerState/stopped" in [s.code for s in view.statuses]
