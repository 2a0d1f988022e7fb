"""Machines of one resource group that read what exists of them at the same time share one ARM list of the group
(activities/reading/group_listing.py); each still gets exactly its own resources, with their tags."""

import asyncio
from collections.abc import Callable
from typing import Any

from activities.driver import AzureDriver
from models.spec import MachineSpec
from tests.activities.conftest import put_disk

LIST = "resources.list"


async def test_a_crowd_of_new_machines_reads_the_group_in_one_list_and_each_sees_its_own(
        driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec], sdk: Any) -> None:
    # vm1's data disk survived an earlier VM; vm10 is another machine whose names contain "vm1".
    await put_disk(sdk, "vm1-0-data-disk", {"azmc-machine": "vm1", "azmc-owner": "driver-tests/test"})
    await put_disk(sdk, "vm10-0-data-disk", {"azmc-machine": "vm10", "azmc-owner": "driver-tests/test"})
    specs = [make_spec(f"vm{i}") for i in range(1, 13)]
    driver.reset_request_counts()
    found = await asyncio.gather(*(env.run(driver.find_vm, spec) for spec in specs))
    by_name = dict(zip((spec.name for spec in specs), found, strict=True))
    assert [d.name for d in by_name["vm1"].data_disks] == ["vm1-0-data-disk"]
    assert [d.name for d in by_name["vm10"].data_disks] == ["vm10-0-data-disk"]
    assert all(not f.has_vm and not f.data_disks for name, f in by_name.items() if name not in ("vm1", "vm10"))
    # The first asks at once, alone; the eleven that asked meanwhile share the group's list (alone: 12 lists).
    assert driver.request_counts()[LIST] <= 2, driver.request_counts()


async def test_a_lone_machine_lists_its_own_resources_at_once(
        driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec], emulator: Any) -> None:
    driver.reset_request_counts()
    found = await env.run(driver.find_vm, make_spec("alone"))
    assert not found.has_vm and driver.request_counts() == {LIST: 1}
