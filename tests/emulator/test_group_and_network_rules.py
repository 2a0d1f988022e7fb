"""Resource group existence/deletion and subnet rules."""

from __future__ import annotations

import time

import pytest
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError
from azure.mgmt.compute import models as cm
from azure.mgmt.resource.resources import models as rm

from tests.emulator.builders import LOCATION, RG, empty_disk, nic_body, vm_body
from tests.support.arm_http import arm, group_path
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import sdk_clients


def test_head_reports_group_existence(emulator: EmulatorHandle) -> None:
    assert arm(emulator, "HEAD", group_path(emulator, RG)).status == 204
    assert arm(emulator, "HEAD", group_path(emulator, "nope")).status == 404


def test_deleting_a_group_deletes_what_it_contains(emulator: EmulatorHandle) -> None:
    assert arm(emulator, "PUT", group_path(emulator, "doomed"), {"location": LOCATION}).status == 201
    clients = sdk_clients(emulator)
    clients.network.network_interfaces.begin_create_or_update("doomed", "n1", nic_body(emulator.subnet_id)).result()
    clients.close()
    assert arm(emulator, "DELETE", group_path(emulator, "doomed")).status == 202
    deadline = time.monotonic() + 5
    while emulator.resources("networkInterfaces"):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert arm(emulator, "GET", group_path(emulator, "doomed")).status == 404


def test_a_deleted_group_answers_resource_group_not_found_to_every_call_in_it(
        emulator: EmulatorHandle) -> None:
    """As Azure: the group's DELETE is a long-running operation (the SDK's poller), and afterwards every
    read, list, write and delete of a resource in it is 404 ResourceGroupNotFound, naming the group."""
    clients = sdk_clients(emulator)
    clients.resources.resource_groups.create_or_update("doomed", rm.ResourceGroup(location=LOCATION))
    nic = clients.network.network_interfaces.begin_create_or_update("doomed", "n1", nic_body(emulator.subnet_id))
    clients.compute.virtual_machines.begin_create_or_update("doomed", "v1", vm_body("v1", nic.result().id)).result()
    clients.compute.disks.begin_create_or_update("doomed", "d1", empty_disk()).result()

    clients.resources.resource_groups.begin_delete("doomed", polling_interval=0.01).result()

    calls = {
        "GET VM": lambda: clients.compute.virtual_machines.get("doomed", "v1"),
        "GET NIC": lambda: clients.network.network_interfaces.get("doomed", "n1"),
        "GET disk": lambda: clients.compute.disks.get("doomed", "d1"),
        "GET group": lambda: clients.resources.resource_groups.get("doomed"),
        "list": lambda: list(clients.resources.resources.list_by_resource_group("doomed")),
        "PATCH NIC tags": lambda: clients.network.network_interfaces.update_tags("doomed", "n1", {"tags": {}}),
        "DELETE NIC": lambda: clients.network.network_interfaces.begin_delete("doomed", "n1"),
        "PUT NIC": lambda: clients.network.network_interfaces.begin_create_or_update(
            "doomed", "n1", nic_body(emulator.subnet_id)),
    }
    for what, call in calls.items():
        with pytest.raises(ResourceNotFoundError) as caught:
            call()
        assert caught.value.status_code == 404, what
        assert caught.value.error.code == "ResourceGroupNotFound", what
        assert caught.value.error.message == "Resource group 'doomed' could not be found.", what
    assert not clients.resources.resource_groups.check_existence("doomed")
    assert [r for r in emulator.resources() if r.get("resourceGroup", "").lower() == "doomed"] == []
    clients.close()


def test_subnet_in_use_cannot_be_deleted(emulator: EmulatorHandle) -> None:
    clients = sdk_clients(emulator)
    clients.network.network_interfaces.begin_create_or_update(RG, "sub-nic", nic_body(emulator.subnet_id)).result()
    with pytest.raises(HttpResponseError) as caught:
        clients.network.subnets.begin_delete(RG, "azmc-vnet", "default")
    assert caught.value.status_code == 400 and caught.value.error.code == "InUseSubnetCannotBeDeleted"
    clients.close()


def test_nic_with_unknown_subnet_is_rejected(emulator: EmulatorHandle) -> None:
    clients = sdk_clients(emulator)
    with pytest.raises(HttpResponseError) as caught:
        clients.network.network_interfaces.begin_create_or_update(
            RG, "lost-nic", nic_body(emulator.subnet_id.replace("/default", "/missing")))
    assert caught.value.status_code == 400 and caught.value.error.code == "InvalidResourceReference"
    clients.close()


def test_empty_disk_needs_a_size(emulator: EmulatorHandle) -> None:
    clients = sdk_clients(emulator)
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.disks.begin_create_or_update(RG, "d", cm.Disk(
            location=LOCATION, creation_data=cm.CreationData(create_option="Empty")))
    assert caught.value.status_code == 400
    clients.close()
