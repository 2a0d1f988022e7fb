"""Paced writes of a crowd check ownership against one shared list of their group (activities/reading/
group_snapshots.py), not a read each: NIC PUTs against the group's resources, power-offs and deletes against its
VMs. Ownership still holds: another owner's resource in the list is refused as a GET would refuse it."""

import asyncio
from collections.abc import Callable
from typing import Any

from activities.driver import AzureDriver
from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import DeleteVmInput, EnsureVmInput, MachineRef
from models.errors import ErrorType
from models.spec import MachineSpec
from tests.activities.conftest import INSTALLATION, TOKEN
from tests.support.driver import emulator_driver

CROWD = 8


async def _made(env: Any, driver: AzureDriver, specs: list[MachineSpec]) -> None:
    for spec in specs:
        nic_id = await env.run(driver.ensure_nic, spec)
        await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id, vm_absent=True))


async def test_a_crowd_of_nic_puts_reads_the_group_once_not_each_nic(
        emulator: Any, env: Any, make_spec: Callable[..., MachineSpec]) -> None:
    specs = [make_spec(f"nic{i}", data_disks=[]) for i in range(CROWD)]
    async with emulator_driver(emulator, INSTALLATION, TOKEN) as fresh:  # a worker that listed nothing before
        await asyncio.gather(*(env.run(fresh.ensure_nic, spec) for spec in specs))
        counts = fresh.request_counts()
    assert counts["networkInterfaces.put"] == CROWD
    # The first two read their NIC; from the third the group's list answers (one list, not six GETs).
    assert counts.get("networkInterfaces.get", 0) <= 2 and counts.get("resources.list", 0) <= 2, counts


async def test_a_crowd_of_deletes_checks_ownership_against_the_groups_vm_list(
        emulator: Any, env: Any, driver: AzureDriver, make_spec: Callable[..., MachineSpec], sdk: Any) -> None:
    specs = [make_spec(f"del{i}", data_disks=[]) for i in range(CROWD)]
    await _made(env, driver, specs)
    # One VM of the crowd was taken by another owner meanwhile: its delete must be refused, not done blindly.
    taken = await sdk.compute.virtual_machines.get(SEED_RESOURCE_GROUP, "del3")
    await (await sdk.compute.virtual_machines.begin_update(
        SEED_RESOURCE_GROUP, "del3", {"tags": {**(taken.tags or {}), "azmc-owner": "someone-else/x"}})).result()
    async with emulator_driver(emulator, INSTALLATION, TOKEN) as fresh:  # a worker that read none of them
        outcomes = await asyncio.gather(*(
            env.run(fresh.delete_vm, DeleteVmInput(machine=MachineRef(resource_group=SEED_RESOURCE_GROUP,
                                                                      name=spec.name), force=True))
            for spec in specs), return_exceptions=True)
        counts = fresh.request_counts()
    refused = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(refused) == 1 and getattr(refused[0], "type", "") == ErrorType.NOT_OWNED, outcomes
    left = {r["name"] for r in emulator.resources("virtualMachines")}
    assert left == {"del3"}
    assert counts.get("virtualMachines.get", 0) <= 2, counts  # the first two read their VM; then the list
    assert counts["virtualMachines.delete"] == CROWD - 1


async def test_a_lone_delete_reads_its_vm_as_before(
        emulator: Any, env: Any, driver: AzureDriver, make_spec: Callable[..., MachineSpec]) -> None:
    spec = make_spec("alone", data_disks=[])
    await _made(env, driver, [spec])
    async with emulator_driver(emulator, INSTALLATION, TOKEN) as fresh:
        await env.run(fresh.delete_vm, DeleteVmInput(machine=MachineRef(resource_group=SEED_RESOURCE_GROUP,
                                                                       name="alone"), force=True))
        counts = fresh.request_counts()
    assert counts["virtualMachines.get"] == 1, counts  # no list of its group for one machine
