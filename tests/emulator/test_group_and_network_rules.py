"""Resource group existence/deletion and subnet rules."""

from __future__ import annotations

import time

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute import models as cm

from tests.emulator.builders import LOCATION, RG, nic_body
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
