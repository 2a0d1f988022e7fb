"""Reads the driver spares because it just read or wrote the same thing (activities/read_cache.py), and the
guarantees that still hold: a VM changed since the read is never PATCHed blindly (If-Match, 412, GET
again), a driver that read nothing reads first."""

from collections.abc import Callable
from typing import Any

from azure.mgmt.compute import models as cm

from activities.driver import AzureDriver
from bench.arm_requests import APART, LIMIT, MCM, SHARED_READ, is_poll, is_read, lifecycle
from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import DataDiskDeleteOptionInput, DeleteVmInput, MachineRef
from models.spec import MachineSpec
from tests.activities.conftest import INSTALLATION, TOKEN
from tests.support.driver import emulator_driver

VM1 = MachineRef(resource_group=SEED_RESOURCE_GROUP, name="vm1")


def without_waits(counts: dict[str, int]) -> dict[str, int]:
    """The requests but the waits for operations: their polls and the shared status reads (bench.arm_requests)."""
    return {op: n for op, n in counts.items() if not is_poll(op)}


async def test_a_clean_lifecycle_costs_at_most_mcms_requests(emulator: Any) -> None:
    steps = await lifecycle(emulator.url)
    every = sum((counts for label, counts in steps if label not in APART), start=type(steps[0][1])())
    requests = without_waits(every)
    assert sum(requests.values()) <= LIMIT == MCM
    assert sum(n for op, n in requests.items() if not is_read(op)) <= 5
    # Time scale 0 here: one shared status read per wait of a VM operation, one poll for the data disk's tag.
    assert every.get("operations.poll", 0) <= 1 and every[SHARED_READ] <= 3


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
    assert without_waits(driver.request_counts()) == {"virtualMachines.patch": 1, "virtualMachines.delete": 1}
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
    assert without_waits(driver.request_counts()) == {"virtualMachines.powerOff": 1}
    view = await sdk.compute.virtual_machines.instance_view(SEED_RESOURCE_GROUP, "vm1")
    assert "PowerState/stopped" in [s.code for s in view.statuses]
