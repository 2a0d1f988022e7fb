"""ensure_vm told the VM is absent creates with ONE conditional PUT (If-None-Match: *), no GET before it
and none after it; a VM that another owner made meanwhile is refused by the condition (412), never
written, and named."""

from collections.abc import Callable
from typing import Any

import pytest
from temporalio.exceptions import ApplicationError

from activities.driver import AzureDriver
from activities.nic import build_nic
from activities.vm_body import build_vm
from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import EnsureVmInput
from models.errors import ErrorType
from models.spec import MachineSpec


async def test_a_vm_known_absent_is_created_by_one_conditional_put(
    driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec],
) -> None:
    spec = make_spec(data_disks=[])
    nic_id = await env.run(driver.ensure_nic, spec)
    driver.reset_request_counts()
    inventory = await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id, vm_absent=True))
    assert inventory.vm_healthy
    counts = driver.request_counts()
    assert counts.get("virtualMachines.put") == 1 and "virtualMachines.get" not in counts
    # What it answers without the GET is what a GET says (but the power state, which only a GET with
    # instanceView shows, and which creation does not need).
    read = await env.run(driver.read_inventory, spec)
    assert inventory.model_copy(update={"vm_state": read.vm_state}) == read


async def test_another_owners_vm_made_meanwhile_is_never_written(
    driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec], sdk: Any, emulator: Any,
) -> None:
    spec = make_spec(data_disks=[])
    theirs = {"azmc-machine": "vm1", "azmc-owner": "someone-else/machine/x/vm1"}
    nic = await (await sdk.network.network_interfaces.begin_create_or_update(
        SEED_RESOURCE_GROUP, "their-nic", build_nic(spec, theirs))).result()
    await (await sdk.compute.virtual_machines.begin_create_or_update(
        SEED_RESOURCE_GROUP, "vm1", build_vm(spec, nic.id, theirs))).result()
    before = (await sdk.compute.virtual_machines.get(SEED_RESOURCE_GROUP, "vm1")).etag
    with pytest.raises(ApplicationError) as refused:
        await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic.id, vm_absent=True))
    assert refused.value.type == ErrorType.NOT_OWNED and "someone-else" in refused.value.message
    assert (await sdk.compute.virtual_machines.get(SEED_RESOURCE_GROUP, "vm1")).etag == before


async def test_the_answer_without_a_get_names_the_disks_as_azure_does(
    driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec],
) -> None:
    spec = make_spec(data_disks=[{"lun": 0, "size_gb": 8}, {"lun": 3, "size_gb": 8, "name": "logs"}])
    nic_id = await env.run(driver.ensure_nic, spec)
    created = await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id, vm_absent=True))
    read = await env.run(driver.read_inventory, spec)
    assert (created.provider_id, created.nic_names, created.disk_names) == (
        read.provider_id, read.nic_names, read.disk_names)
    assert [(d.name, d.lun, d.id.lower(), d.delete_option) for d in created.data_disks] == [
        (d.name, d.lun, d.id.lower(), d.delete_option) for d in read.data_disks]
    assert all(d.unique_id for d in created.data_disks)  # read by the tag PATCH's GET: the status shows it
