"""list_machines (paged Resource Graph by tag), power_off, request counting and secret-free logs."""

import logging
from typing import Any

import pytest

from activities.reading import graph
from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import DeleteVmInput, ListMachinesInput, MachineRef
from tests.activities.conftest import TOKEN

RG = SEED_RESOURCE_GROUP


async def test_list_machines_groups_partial_machines_across_pages(driver, env, make_spec, create_machine,
                                                                  make_disk, monkeypatch) -> None:
    monkeypatch.setattr(graph, "PAGE_SIZE", 2)  # force several $skipToken pages
    await create_machine(make_spec("vm1", pool="blue"))
    await env.run(driver.ensure_nic, make_spec("vm10", pool="green"))
    await make_disk("vm2-os-disk", {"azmc-machine": "vm2"})
    await make_disk("unrelated", {"team": "x"})
    machines = await env.run(driver.list_machines, ListMachinesInput(resource_group=RG))
    by_name = {m.name: m for m in machines}
    assert sorted(by_name) == ["vm1", "vm10", "vm2"]
    vm1 = by_name["vm1"]
    assert vm1.pool == "blue" and vm1.resource_group == RG and vm1.inventory.has_vm
    assert vm1.inventory.nic_names == ["vm1-nic"]
    assert vm1.inventory.disk_names == ["vm1-0-data-disk", "vm1-os-disk"]
    assert not by_name["vm10"].inventory.has_vm and by_name["vm10"].inventory.nic_names == ["vm10-nic"]
    assert by_name["vm2"].inventory.disk_names == ["vm2-os-disk"]
    green = await env.run(driver.list_machines, ListMachinesInput(pool="green"))
    assert [m.name for m in green] == ["vm10"]
    assert driver.request_counts()["resourceGraph.query"] >= 3  # pages were followed


async def test_power_off_is_graceful_and_idempotent(driver, env, make_spec, create_machine) -> None:
    spec = make_spec()
    await create_machine(spec)
    ref = MachineRef(resource_group=RG, name="vm1")
    await env.run(driver.power_off, ref)
    assert (await env.run(driver.read_inventory, spec)).vm_state.power_state == "stopped"
    driver.reset_request_counts()
    await env.run(driver.power_off, ref)  # already off: one GET, no second powerOff
    assert driver.request_counts() == {"virtualMachines.get": 1}
    await env.run(driver.delete_vm, DeleteVmInput(machine=ref))
    await env.run(driver.power_off, ref)  # VM gone: nothing to do


async def test_driver_counts_match_the_emulator(driver, env, make_spec, create_machine, emulator) -> None:
    spec = make_spec()
    await create_machine(spec)
    await env.run(driver.read_inventory, spec)
    await env.run(driver.delete_vm, DeleteVmInput(machine=MachineRef(resource_group=RG, name="vm1")))
    ours = {op: n for op, n in driver.request_counts().items() if op != "operations.poll"}
    theirs = {op: n for op, n in emulator.requests()["by_operation"].items() if not op.startswith("operations")}
    assert ours == theirs and sum(ours.values()) > 0


async def test_logs_name_the_machine_and_never_the_token(driver, env, make_spec, create_machine,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    for name in ("azure", "azure.core.pipeline.policies.http_logging_policy", "temporalio.activity"):
        logging.getLogger(name).setLevel(logging.DEBUG)
    spec = make_spec()
    await create_machine(spec)
    await env.run(driver.read_inventory, spec)
    messages: list[Any] = [r.getMessage() for r in caplog.records]
    assert TOKEN not in caplog.text and all(TOKEN not in m for m in messages)
    activity_lines = [r.getMessage() for r in caplog.records if r.name == "temporalio.activity"]
    assert activity_lines and all("[vm1]" in line for line in activity_lines)
