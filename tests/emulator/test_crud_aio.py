"""The same lifecycle through the .aio SDK clients (the driver uses them)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import pytest
from azure.core.exceptions import ResourceNotFoundError
from azure.mgmt.compute import models as cm
from azure.mgmt.network import models as nm

from tests.emulator.builders import LOCATION, RG, nic_body, vm_body
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import AsyncClients, async_sdk_clients

STALL_S = 10  # well below the SDK's 30 s default polling interval


@pytest.fixture
async def aio(emulator: EmulatorHandle) -> AsyncIterator[AsyncClients]:
    made = async_sdk_clients(emulator)
    yield made
    await made.close()


async def test_network_resources_through_aio(emulator: EmulatorHandle, aio: AsyncClients) -> None:
    started = time.monotonic()
    poller = await aio.network.virtual_networks.begin_create_or_update(RG, "aio-vnet", nm.VirtualNetwork(
        location=LOCATION, address_space=nm.AddressSpace(address_prefixes=["10.2.0.0/16"])))
    assert (await poller.result()).provisioning_state == "Succeeded"
    poller = await aio.network.subnets.begin_create_or_update(RG, "aio-vnet", "s1",
                                                             nm.Subnet(address_prefix="10.2.0.0/24"))
    subnet = await poller.result()
    poller = await aio.network.network_interfaces.begin_create_or_update(RG, "aio-nic", nic_body(subnet.id))
    nic = await poller.result()
    assert nic.ip_configurations[0].private_ip_address == "10.2.0.4"
    assert [n.name async for n in aio.network.network_interfaces.list(RG)] == ["aio-nic"]
    assert (await aio.network.subnets.get(RG, "aio-vnet", "s1")).ip_configurations[0].id.endswith("ipconfig1")
    await (await aio.network.network_interfaces.begin_delete(RG, "aio-nic")).result()
    await (await aio.network.subnets.begin_delete(RG, "aio-vnet", "s1")).result()
    await (await aio.network.virtual_networks.begin_delete(RG, "aio-vnet")).result()
    with pytest.raises(ResourceNotFoundError):
        await aio.network.virtual_networks.get(RG, "aio-vnet")
    assert time.monotonic() - started < STALL_S


async def test_compute_resources_through_aio(emulator: EmulatorHandle, aio: AsyncClients) -> None:
    started = time.monotonic()
    disk = await (await aio.compute.disks.begin_create_or_update(RG, "aio-disk", cm.Disk(
        location=LOCATION, disk_size_gb=8, creation_data=cm.CreationData(create_option="Empty")))).result()
    assert disk.provisioning_state == "Succeeded"
    assert [d.name async for d in aio.compute.disks.list_by_resource_group(RG)] == ["aio-disk"]
    await (await aio.compute.disks.begin_delete(RG, "aio-disk")).result()

    nic = await (await aio.network.network_interfaces.begin_create_or_update(
        RG, "aio-vm-nic", nic_body(emulator.subnet_id))).result()
    vm = await (await aio.compute.virtual_machines.begin_create_or_update(
        RG, "aio-vm", vm_body("aio-vm", nic.id, data_disks=2))).result()
    assert vm.provisioning_state == "Succeeded"
    assert [v.name async for v in aio.compute.virtual_machines.list(RG)] == ["aio-vm"]
    fetched = await aio.compute.virtual_machines.get(RG, "aio-vm", expand="instanceView")
    assert [s.code for s in fetched.instance_view.statuses] == ["ProvisioningState/succeeded", "PowerState/running"]
    for verb, power in (("begin_deallocate", "deallocated"), ("begin_start", "running"),
                        ("begin_power_off", "stopped")):
        await (await getattr(aio.compute.virtual_machines, verb)(RG, "aio-vm")).result()
        view = await aio.compute.virtual_machines.instance_view(RG, "aio-vm")
        assert view.statuses[-1].code == f"PowerState/{power}"
    await (await aio.compute.virtual_machines.begin_delete(RG, "aio-vm", force_deletion=True)).result()
    with pytest.raises(ResourceNotFoundError):
        await aio.compute.virtual_machines.get(RG, "aio-vm")
    assert emulator.resources("networkInterfaces") == [] and emulator.resources("disks") == []
    assert time.monotonic() - started < STALL_S
