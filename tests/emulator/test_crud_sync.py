"""Create / get / list / delete of every resource type through the sync SDK clients' pollers."""

from __future__ import annotations

import time

import pytest
from azure.core.exceptions import ResourceNotFoundError
from azure.mgmt.compute import models as cm
from azure.mgmt.network import models as nm

from tests.emulator.builders import LOCATION, RG, nic_body, vm_body
from tests.support.arm_http import arm, group_path
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

# The SDK's default polling interval is 30 s: a create that needed it would take >= 30 s.
STALL_S = 10


def test_resource_group_put_get_list_delete(emulator: EmulatorHandle) -> None:
    path = group_path(emulator, "rg-crud")
    created = arm(emulator, "PUT", path, {"location": LOCATION, "tags": {"team": "a"}})
    assert created.status == 201
    assert created.body["properties"]["provisioningState"] == "Succeeded"
    assert arm(emulator, "PUT", path, {"location": LOCATION, "tags": {"team": "b"}}).status == 200
    assert arm(emulator, "GET", path).body["tags"] == {"team": "b"}
    names = [g["name"] for g in arm(emulator, "GET", f"/subscriptions/{emulator.subscription_id}/resourcegroups")
             .body["value"]]
    assert "rg-crud" in names and "azmc-demo" in names
    deleting = arm(emulator, "DELETE", path)
    assert deleting.status == 202 and "location" in deleting.headers
    deadline = time.monotonic() + STALL_S
    while arm(emulator, "GET", path).status != 404:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert arm(emulator, "GET", path).error_code == "ResourceGroupNotFound"


def test_virtual_network_and_subnet_crud(emulator: EmulatorHandle, clients: SyncClients) -> None:
    started = time.monotonic()
    vnet = clients.network.virtual_networks.begin_create_or_update(RG, "vnet2", nm.VirtualNetwork(
        location=LOCATION, address_space=nm.AddressSpace(address_prefixes=["10.1.0.0/16"]),
        subnets=[nm.Subnet(name="a", address_prefix="10.1.0.0/24")],
    )).result()
    assert vnet.provisioning_state == "Succeeded"
    assert [s.name for s in vnet.subnets] == ["a"]
    subnet = clients.network.subnets.begin_create_or_update(
        RG, "vnet2", "b", nm.Subnet(address_prefix="10.1.1.0/24")).result()
    assert subnet.provisioning_state == "Succeeded" and subnet.address_prefix == "10.1.1.0/24"
    assert clients.network.subnets.get(RG, "vnet2", "b").id == subnet.id
    assert sorted(s.name for s in clients.network.subnets.list(RG, "vnet2")) == ["a", "b"]
    assert sorted(v.name for v in clients.network.virtual_networks.list(RG)) == ["azmc-vnet", "vnet2"]
    assert "vnet2" in [v.name for v in clients.network.virtual_networks.list_all()]
    clients.network.subnets.begin_delete(RG, "vnet2", "b").result()
    with pytest.raises(ResourceNotFoundError):
        clients.network.subnets.get(RG, "vnet2", "b")
    clients.network.virtual_networks.begin_delete(RG, "vnet2").result()
    with pytest.raises(ResourceNotFoundError):
        clients.network.virtual_networks.get(RG, "vnet2")
    assert time.monotonic() - started < STALL_S


def test_network_interface_crud(emulator: EmulatorHandle, clients: SyncClients) -> None:
    started = time.monotonic()
    nic = clients.network.network_interfaces.begin_create_or_update(
        RG, "crud-nic", nic_body(emulator.subnet_id, {"k": "v"})).result()
    assert time.monotonic() - started < STALL_S
    assert nic.provisioning_state == "Succeeded"
    assert nic.ip_configurations[0].subnet.id.lower() == emulator.subnet_id.lower()
    assert nic.ip_configurations[0].private_ip_address.startswith("10.0.0.")
    assert clients.network.network_interfaces.get(RG, "crud-nic").tags == {"k": "v"}
    assert [n.name for n in clients.network.network_interfaces.list(RG)] == ["crud-nic"]
    assert [n.name for n in clients.network.network_interfaces.list_all()] == ["crud-nic"]
    # PUT again = update, same resource.
    again = clients.network.network_interfaces.begin_create_or_update(
        RG, "crud-nic", nic_body(emulator.subnet_id, {"k": "w"})).result()
    assert again.resource_guid == nic.resource_guid and again.tags == {"k": "w"}
    clients.network.network_interfaces.begin_delete(RG, "crud-nic").result()
    with pytest.raises(ResourceNotFoundError):
        clients.network.network_interfaces.get(RG, "crud-nic")


def test_disk_crud(emulator: EmulatorHandle, clients: SyncClients) -> None:
    started = time.monotonic()
    disk = clients.compute.disks.begin_create_or_update(RG, "crud-disk", cm.Disk(
        location=LOCATION, sku=cm.DiskSku(name="Premium_LRS"), disk_size_gb=64,
        creation_data=cm.CreationData(create_option="Empty"),
    )).result()
    assert time.monotonic() - started < STALL_S
    assert disk.provisioning_state == "Succeeded" and disk.disk_state == "Unattached"
    assert disk.disk_size_gb == 64 and disk.sku.name == "Premium_LRS"
    assert clients.compute.disks.get(RG, "crud-disk").id == disk.id
    assert [d.name for d in clients.compute.disks.list_by_resource_group(RG)] == ["crud-disk"]
    assert [d.name for d in clients.compute.disks.list()] == ["crud-disk"]
    clients.compute.disks.begin_delete(RG, "crud-disk").result()
    with pytest.raises(ResourceNotFoundError):
        clients.compute.disks.get(RG, "crud-disk")


def test_virtual_machine_crud(emulator: EmulatorHandle, clients: SyncClients) -> None:
    started = time.monotonic()
    nic = clients.network.network_interfaces.begin_create_or_update(
        RG, "crud-vm-nic", nic_body(emulator.subnet_id)).result()
    vm = clients.compute.virtual_machines.begin_create_or_update(RG, "crud-vm", vm_body("crud-vm", nic.id)).result()
    assert time.monotonic() - started < STALL_S
    assert vm.provisioning_state == "Succeeded"
    assert vm.os_profile.admin_password is None  # Azure never echoes secrets
    assert clients.compute.virtual_machines.get(RG, "crud-vm").vm_id == vm.vm_id
    assert [v.name for v in clients.compute.virtual_machines.list(RG)] == ["crud-vm"]
    assert [v.name for v in clients.compute.virtual_machines.list_all()] == ["crud-vm"]
    assert [v.name for v in clients.compute.virtual_machines.list_by_location(LOCATION)] == ["crud-vm"]
    # A second PUT updates the same VM (idempotent create).
    vm.tags = {"azmc-machine": "crud-vm", "extra": "1"}
    updated = clients.compute.virtual_machines.begin_create_or_update(RG, "crud-vm", vm).result()
    assert updated.vm_id == vm.vm_id and updated.tags["extra"] == "1"
    assert len(emulator.resources("disks")) == 2
    clients.compute.virtual_machines.begin_delete(RG, "crud-vm", force_deletion=True).result()
    with pytest.raises(ResourceNotFoundError):
        clients.compute.virtual_machines.get(RG, "crud-vm")
    assert time.monotonic() - started < STALL_S


def test_lists_page_with_next_link(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.settings(page_size=2)
    for i in range(5):
        clients.network.network_interfaces.begin_create_or_update(
            RG, f"page-{i}", nic_body(emulator.subnet_id)).result()
    pages = list(clients.network.network_interfaces.list(RG).by_page())
    assert [len(list(p)) for p in pages] == [2, 2, 1]
    assert sorted(n.name for n in clients.network.network_interfaces.list(RG)) == [f"page-{i}" for i in range(5)]
