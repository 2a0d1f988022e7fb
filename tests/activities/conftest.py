"""Driver fixtures: a real AzureDriver (real SDK clients) against the live emulator, and spec builders."""

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from temporalio.testing import ActivityEnvironment

from activities.config import AzureConfig
from activities.driver import AzureDriver
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP
from models.spec import MachineSpec
from tests.support.driver import emulator_driver

TOKEN = "driver-test-token-5f1e"
INSTALLATION = "driver-tests"  # the installation id every driver test acts for
# The owner tag's value for activities run in a plain ActivityEnvironment (its workflow id is "test").
OWNER = f"{INSTALLATION}/test"


@pytest.fixture
async def driver(emulator: Any) -> AsyncIterator[AzureDriver]:
    async with emulator_driver(emulator, INSTALLATION, TOKEN) as opened:
        yield opened


@pytest.fixture
def env() -> ActivityEnvironment:
    return ActivityEnvironment()


@pytest.fixture
def make_spec(emulator: Any) -> Callable[..., MachineSpec]:
    def build(name: str = "vm1", **changes: Any) -> MachineSpec:
        base: dict[str, Any] = {
            "name": name, "resource_group": SEED_RESOURCE_GROUP, "location": SEED_LOCATION,
            "vm_size": "Standard_D2s_v5",
            "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
            "subnet_id": emulator.subnet_id, "ssh_public_key": "ssh-ed25519 AAAAC3Nza test@azmc",
            "data_disks": [{"lun": 0, "size_gb": 32}],
        }
        base.update(changes)
        return MachineSpec.model_validate(base)

    return build


@pytest.fixture
async def sdk(emulator: Any) -> AsyncIterator[Any]:
    """Raw SDK clients for arranging scenes the driver would never create (foreign or stray resources)."""
    from activities.clients import build_clients

    clients = build_clients(AzureConfig(installation_id=INSTALLATION, subscription_id=emulator.subscription_id,
                                        endpoint=emulator.url, emulator_token=TOKEN))
    try:
        yield clients
    finally:
        await clients.close()


@pytest.fixture
def create_machine(driver: AzureDriver, env: ActivityEnvironment) -> Callable[..., Any]:
    """The workflow's creation steps: ensure_nic then ensure_vm."""
    from models.activity_io import EnsureVmInput

    async def create(spec: MachineSpec) -> Any:
        nic_id = await env.run(driver.ensure_nic, spec)
        return await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))

    return create


async def put_disk(sdk: Any, name: str, tags: dict[str, str], rg: str = SEED_RESOURCE_GROUP) -> None:
    from azure.mgmt.compute import models as cm

    disk = cm.Disk(location=SEED_LOCATION, tags=tags, sku=cm.DiskSku(name="StandardSSD_LRS"),
                   creation_data=cm.CreationData(create_option="Empty"), disk_size_gb=8)
    poller = await sdk.compute.disks.begin_create_or_update(rg, name, disk)
    await poller.result()


@pytest.fixture
def make_disk(sdk: Any) -> Callable[..., Any]:
    async def make(name: str, tags: dict[str, str]) -> None:
        await put_disk(sdk, name, tags)

    return make


async def delete_vm_keeping_disks(sdk: Any, name: str, rg: str = SEED_RESOURCE_GROUP) -> None:
    """Out-of-band removal the way an operator might do it: set every disk's deleteOption to Detach, then
    delete the VM. The disks Azure created for it stay behind (the NIC, deleteOption Delete, goes)."""
    vm = await sdk.compute.virtual_machines.get(rg, name)
    storage = vm.storage_profile
    for disk in [storage.os_disk, *(storage.data_disks or [])]:
        disk.delete_option = "Detach"
    await (await sdk.compute.virtual_machines.begin_create_or_update(rg, name, vm)).result()
    await (await sdk.compute.virtual_machines.begin_delete(rg, name)).result()
