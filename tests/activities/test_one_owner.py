"""One owner per machine, through the real SDK and the emulator: another installation (or another workflow
of this one) never adopts, changes or deletes a machine's resources; resources tagged by azmc before owner
tags existed are adopted once and tagged, so upgrading leaks nothing."""

import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import pytest
from azure.mgmt.compute import models as cm
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.driver import AzureDriver
from activities.nic import build_nic
from activities.vm_body import build_vm
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP
from models.activity_io import DeleteResourceInput, DeleteVmInput, EnsureVmInput, MachineRef
from models.errors import ErrorType
from tests.activities.conftest import INSTALLATION, TOKEN
from tests.support.driver import emulator_driver

RG = SEED_RESOURCE_GROUP
WORKFLOW_ID = "machine/azmc-demo/vm1"
OURS = f"{INSTALLATION}/{WORKFLOW_ID}"
WRITES = ("put", "patch", "delete", "powerOff", "deallocate", "start")


def env_for(workflow_id: str = WORKFLOW_ID) -> ActivityEnvironment:
    """Activities as the workflow with this id runs them (the owner tag names the workflow id)."""
    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, workflow_id=workflow_id)
    return env


@pytest.fixture
async def other_installation(emulator: Any) -> AsyncIterator[AzureDriver]:
    """A second azmc (another Temporal cluster or namespace) pointed at the same resource group."""
    async with emulator_driver(emulator, "other-installation", TOKEN) as opened:
        yield opened


def snapshot(emulator: Any) -> list[tuple[str, str, Any]]:
    return sorted((r["id"], r.get("provisioningState", ""), r.get("tags")) for r in emulator.resources()
                  if r["type"].lower() != "microsoft.network/virtualnetworks")


def writes(emulator: Any) -> int:
    return sum(n for op, n in emulator.requests()["by_operation"].items() if op.split(".")[-1] in WRITES)


async def refused(call: Any) -> ApplicationError:
    with pytest.raises(ApplicationError) as info:
        await call
    assert info.value.type == ErrorType.NOT_OWNED and info.value.non_retryable, info.value
    return info.value


async def _create(driver: AzureDriver, spec: Any, env: ActivityEnvironment) -> Any:
    nic_id = await env.run(driver.ensure_nic, spec)
    return await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))


async def test_every_resource_that_can_outlive_its_vm_carries_the_owner_tag(driver, make_spec, emulator) -> None:
    await _create(driver, make_spec(), env_for())
    tags = {r["name"]: r["tags"] for r in emulator.resources() if r["name"].startswith("vm1") and r["tags"]}
    assert set(tags) == {"vm1", "vm1-nic", "vm1-0-data-disk"}  # the OS disk goes with its VM: deleteOption Delete
    assert all(t["azmc-owner"] == OURS and t["azmc-machine"] == "vm1" for t in tags.values()), tags


async def test_another_installation_never_adopts_changes_or_deletes(driver, other_installation, make_spec,
                                                                     emulator) -> None:
    spec = make_spec()
    await _create(driver, spec, env_for())
    before, writes_before = snapshot(emulator), writes(emulator)
    env, machine = env_for(), MachineRef(resource_group=RG, name="vm1")
    other = other_installation

    error = await refused(env.run(other.find_vm, spec))
    assert f"azmc-owner={OURS}" in error.message and "azmc-owner=other-installation/" in error.message
    await refused(env.run(other.ensure_nic, spec))
    await refused(env.run(other.ensure_vm, EnsureVmInput(spec=spec, nic_id="/whatever")))
    await refused(env.run(other.power_off, machine))
    await refused(env.run(other.delete_vm, DeleteVmInput(machine=machine, force=True)))
    await refused(env.run(other.delete_nic, DeleteResourceInput(machine=machine, name="vm1-nic")))
    for disk in ("vm1-os-disk", "vm1-0-data-disk"):
        await refused(env.run(other.delete_disk, DeleteResourceInput(machine=machine, name=disk)))
    # Its deletion reads find nothing of its own: the first installation's resources are listed as not its.
    seen = await env.run(other.read_inventory, spec)
    assert seen.is_empty and sorted(seen.not_ours) == ["NIC vm1-nic", "VM vm1", "disk vm1-0-data-disk",
                                                       "disk vm1-os-disk"]
    assert snapshot(emulator) == before and writes(emulator) == writes_before
    # The owner still has all of it.
    assert (await env.run(driver.read_inventory, spec)).vm_healthy


async def test_another_workflow_of_the_same_installation_is_another_owner(driver, make_spec, emulator) -> None:
    """A `rogue/dup1` workflow started by an azmc that predates the workflow id check."""
    spec = make_spec()
    await _create(driver, spec, env_for())
    before = snapshot(emulator)
    rogue = env_for("rogue/dup1")
    await refused(rogue.run(driver.find_vm, spec))
    await refused(rogue.run(driver.delete_vm, DeleteVmInput(machine=MachineRef(resource_group=RG, name="vm1"))))
    assert snapshot(emulator) == before


async def _legacy_machine(sdk: Any, spec: Any) -> None:
    """What azmc wrote before owner tags: azmc-machine only on the VM and NIC, the VM's disks untagged."""
    legacy = {"azmc-machine": "vm1", "team": "old"}
    nic = await (await sdk.network.network_interfaces.begin_create_or_update(
        RG, "vm1-nic", build_nic(spec, legacy))).result()
    await (await sdk.compute.virtual_machines.begin_create_or_update(
        RG, "vm1", build_vm(spec, nic.id, legacy))).result()


async def test_legacy_machine_is_adopted_once_then_refused_to_others(driver, other_installation, make_spec, sdk,
                                                                     emulator) -> None:
    spec = make_spec()
    await _legacy_machine(sdk, spec)
    env = env_for()
    inventory = await env.run(driver.find_vm, spec)  # a Running machine's health check after the upgrade
    assert inventory.vm_healthy
    tags = {r["name"]: r["tags"] for r in emulator.resources() if r["name"].startswith("vm1")}
    assert set(tags) == {"vm1", "vm1-nic", "vm1-os-disk", "vm1-0-data-disk"}
    for name, value in tags.items():
        assert value.get("azmc-owner") == OURS and value.get("azmc-machine") == "vm1", (name, value)
    assert tags["vm1"]["team"] == "old"  # adoption adds our tags, it keeps theirs
    patched = writes(emulator)
    await env.run(driver.find_vm, spec)
    assert writes(emulator) == patched  # adopted once: the next read writes nothing
    await refused(env.run(other_installation.find_vm, spec))


async def test_legacy_resources_left_by_a_failed_create_are_adopted_and_deleted(driver, make_spec, sdk,
                                                                                 emulator) -> None:
    """No VM, a legacy NIC and disk: this machine's own leftovers, deleted as before the upgrade."""
    spec = make_spec()
    legacy = {"azmc-machine": "vm1"}
    await (await sdk.network.network_interfaces.begin_create_or_update(RG, "vm1-nic", build_nic(spec, legacy))).result()
    disk = cm.Disk(location=SEED_LOCATION, tags=legacy, sku=cm.DiskSku(name="StandardSSD_LRS"),
                   creation_data=cm.CreationData(create_option="Empty"), disk_size_gb=8)
    await (await sdk.compute.disks.begin_create_or_update(RG, "vm1-os-disk", disk)).result()
    env, machine = env_for(), MachineRef(resource_group=RG, name="vm1")
    inventory = await env.run(driver.read_inventory, spec)
    assert inventory.nic_names == ["vm1-nic"] and inventory.disk_names == ["vm1-os-disk"] and not inventory.not_ours
    await env.run(driver.delete_nic, DeleteResourceInput(machine=machine, name="vm1-nic"))
    await env.run(driver.delete_disk, DeleteResourceInput(machine=machine, name="vm1-os-disk"))
    assert [r["name"] for r in emulator.resources() if r["name"].startswith("vm1")] == []


async def test_legacy_nic_is_tagged_when_creation_reuses_it(driver, make_spec, sdk, emulator) -> None:
    spec = make_spec()
    await (await sdk.network.network_interfaces.begin_create_or_update(
        RG, "vm1-nic", build_nic(spec, {"azmc-machine": "vm1"}))).result()
    await env_for().run(driver.ensure_nic, spec)
    [nic] = [r for r in emulator.resources("networkInterfaces")]
    assert nic["tags"]["azmc-owner"] == OURS


async def test_adoption_that_azure_refuses_is_retried_by_the_next_read(driver, make_spec, sdk, emulator) -> None:
    spec = make_spec()
    await _legacy_machine(sdk, spec)
    emulator.add_fault("virtualMachines.patch", name="vm1", status=409, code="AnotherOperationInProgress",
                       message="busy")
    env = env_for()
    assert (await env.run(driver.find_vm, spec)).vm_healthy  # the read's answer stands
    [vm] = [r for r in emulator.resources("virtualMachines")]
    assert "azmc-owner" not in vm["tags"]  # still legacy: the VM is tagged last
    await env.run(driver.find_vm, spec)
    [vm] = [r for r in emulator.resources("virtualMachines")]
    assert vm["tags"]["azmc-owner"] == OURS
