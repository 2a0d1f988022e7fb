"""A failed VM create leaves a Failed VM and reserves its NIC for 180 s (scaled), as on Azure."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from azure.core.exceptions import HttpResponseError

from tests.emulator.builders import RG, nic_body, vm_body
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients, sdk_clients

# 180 s * 0.01 = 1.8 s of reservation: long enough to observe, short enough to wait out.
SCALE = 0.01
RESERVED = re.compile(
    r"^Nic\(s\) in request is reserved for another Virtual Machine for (\d+) seconds\. Please provide another "
    r"nic\(s\) or retry after (\d+) seconds\. Reserved VM: (\S+)$"
)


@pytest.fixture
def clients(emulator: EmulatorHandle) -> Iterator[SyncClients]:
    emulator.settings(time_scale=SCALE)
    made = sdk_clients(emulator)
    yield made
    made.close()


def fail_create(emulator: EmulatorHandle, clients: SyncClients, name: str) -> tuple[str, str]:
    nic_id = clients.network.network_interfaces.begin_create_or_update(
        RG, f"{name}-nic", nic_body(emulator.subnet_id)).result().id
    emulator.add_fault("virtualMachines.put", name=name, status=409, code="AllocationFailed",
                       message="Allocation failed. We do not have sufficient capacity.", stage="operation")
    poller = clients.compute.virtual_machines.begin_create_or_update(RG, name, vm_body(name, nic_id))
    with pytest.raises(HttpResponseError) as caught:
        poller.result()
    assert caught.value.error.code == "AllocationFailed"
    return nic_id, clients.compute.virtual_machines.get(RG, name).id


def assert_reserved(error: HttpResponseError, vm_id: str) -> int:
    assert error.status_code == 400 and error.error.code == "NicReservedForAnotherVm"
    found = RESERVED.match(error.error.message)
    assert found, error.error.message
    assert found.group(1) == found.group(2) and found.group(3) == vm_id
    return int(found.group(1))


def test_failed_create_leaves_failed_vm(emulator: EmulatorHandle, clients: SyncClients) -> None:
    fail_create(emulator, clients, "fail1")
    vm = clients.compute.virtual_machines.get(RG, "fail1", expand="instanceView")
    assert vm.provisioning_state == "Failed"
    status = vm.instance_view.statuses[0]
    assert status.code == "ProvisioningState/failed/AllocationFailed" and status.level == "Error"
    # Its disks exist already (Azure creates them before allocation fails).
    assert {d["name"] for d in emulator.resources("disks")} == {"fail1-os-disk", "fail1-0-data-disk"}


def test_reserved_nic_cannot_be_deleted_or_attached(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id, vm_id = fail_create(emulator, clients, "fail2")
    with pytest.raises(HttpResponseError) as caught:
        clients.network.network_interfaces.begin_delete(RG, "fail2-nic")
    remaining = assert_reserved(caught.value, vm_id)
    assert 1 <= remaining <= 2  # 180 s scaled by 0.01, rounded up
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(RG, "other", vm_body("other", nic_id))
    assert_reserved(caught.value, vm_id)


def test_deleting_failed_vm_reserves_nic_until_it_expires(emulator: EmulatorHandle, clients: SyncClients) -> None:
    _, vm_id = fail_create(emulator, clients, "fail3")
    clients.compute.virtual_machines.begin_delete(RG, "fail3").result()
    # deleteOption Delete does not remove a reserved NIC; the disks go.
    nic = clients.network.network_interfaces.get(RG, "fail3-nic")
    assert nic.virtual_machine is None
    assert emulator.resources("disks") == []
    with pytest.raises(HttpResponseError) as caught:
        clients.network.network_interfaces.begin_delete(RG, "fail3-nic")
    assert_reserved(caught.value, vm_id)
    reserved = {r["name"]: r for r in emulator.resources("networkInterfaces")}["fail3-nic"]["reservedFor"]
    time.sleep(reserved["remaining_s"] + 0.05)
    clients.network.network_interfaces.begin_delete(RG, "fail3-nic").result()
    assert emulator.resources("networkInterfaces") == []


def test_same_vm_may_retry_with_its_reserved_nic(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id, _ = fail_create(emulator, clients, "fail4")
    vm = clients.compute.virtual_machines.begin_create_or_update(RG, "fail4", vm_body("fail4", nic_id)).result()
    assert vm.provisioning_state == "Succeeded"
    # Once the VM runs on it, the reservation is gone: a later detach leaves a deletable NIC.
    assert "reservedFor" not in emulator.resources("networkInterfaces")[0]
