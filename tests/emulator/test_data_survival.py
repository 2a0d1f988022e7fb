"""What a data disk survives, through the real SDK: its uniqueId, attaching it to another VM, VM deletes."""

from __future__ import annotations

import re

import pytest
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError

from tests.emulator.builders import RG, attach_disk, empty_disk, vm_body
from tests.emulator.steps import make_nic
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

GUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")



def make_disk(clients: SyncClients, name: str) -> str:
    return clients.compute.disks.begin_create_or_update(RG, name, empty_disk()).result().id


def test_a_new_disk_is_unattached_with_a_guid_unique_id(clients: SyncClients) -> None:
    make_disk(clients, "fresh")
    disk = clients.compute.disks.get(RG, "fresh")
    assert GUID.match(disk.unique_id)
    assert disk.disk_state == "Unattached" and disk.managed_by is None


def test_attach_an_existing_disk_keeps_its_unique_id(emulator: EmulatorHandle, clients: SyncClients) -> None:
    disk_id = make_disk(clients, "keep")
    unique_id = clients.compute.disks.get(RG, "keep").unique_id
    vm = clients.compute.virtual_machines.begin_create_or_update(
        RG, "host", vm_body("host", make_nic(clients, emulator, "host-nic"), data_disks=0,
                            attach=[attach_disk(3, disk_id)])).result()
    [entry] = vm.storage_profile.data_disks
    assert entry.managed_disk.id == disk_id and entry.lun == 3 and entry.create_option == "Attach"
    disk = clients.compute.disks.get(RG, "keep")
    assert disk.disk_state == "Attached" and disk.managed_by == vm.id and disk.unique_id == unique_id


def test_attach_of_a_missing_disk_is_refused_before_anything_is_created(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = make_nic(clients, emulator, "lost-nic")
    missing = f"/subscriptions/{emulator.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Compute/disks/gone"
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(
            RG, "lost", vm_body("lost", nic_id, data_disks=0, attach=[attach_disk(0, missing)]))
    assert caught.value.status_code == 404 and caught.value.error.code == "NotFound"
    assert missing in caught.value.error.message
    assert emulator.resources("virtualMachines") == [] and emulator.resources("disks") == []
    assert clients.network.network_interfaces.get(RG, "lost-nic").virtual_machine is None


def test_a_disk_attached_to_another_vm_is_refused_with_conflicting_user_input(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    disk_id = make_disk(clients, "shared")
    first = clients.compute.virtual_machines.begin_create_or_update(
        RG, "first", vm_body("first", make_nic(clients, emulator, "first-nic"), data_disks=0,
                             attach=[attach_disk(0, disk_id)])).result()
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(
            RG, "second", vm_body("second", make_nic(clients, emulator, "second-nic"), data_disks=0,
                                  attach=[attach_disk(0, disk_id)]))
    error = caught.value
    assert error.status_code == 409 and error.error.code == "ConflictingUserInput"
    assert error.error.target == disk_id
    second_id = first.id.replace("/first", "/second")
    assert error.error.message == (
        f"Cannot attach the disk shared to VM {second_id} because it is already attached to VM {first.id}. "
        "A disk can be attached to only one VM at a time.")
    assert clients.compute.disks.get(RG, "shared").managed_by == first.id


def test_vm_delete_keeps_detach_disks_unattached_and_deletes_delete_disks(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    kept_id = make_disk(clients, "data")
    unique_id = clients.compute.disks.get(RG, "data").unique_id
    clients.compute.virtual_machines.begin_create_or_update(
        RG, "gone", vm_body("gone", make_nic(clients, emulator, "gone-nic"), data_disks=1,
                            attach=[attach_disk(1, kept_id, delete_option="Detach")])).result()
    clients.compute.virtual_machines.begin_delete(RG, "gone").result()
    # The OS disk and the Empty data disk had deleteOption Delete; the attached one Detach.
    assert [d["name"] for d in emulator.resources("disks")] == ["data"]
    disk = clients.compute.disks.get(RG, "data")
    assert disk.disk_state == "Unattached" and disk.managed_by is None and disk.unique_id == unique_id
    # ...and a new VM can take it over, data and all.
    new = clients.compute.virtual_machines.begin_create_or_update(
        RG, "again", vm_body("again", make_nic(clients, emulator, "again-nic"), data_disks=0,
                             attach=[attach_disk(0, kept_id)])).result()
    disk = clients.compute.disks.get(RG, "data")
    assert disk.managed_by == new.id and disk.unique_id == unique_id


def test_deleting_an_attached_disk_is_refused_with_azures_message(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    vm = clients.compute.virtual_machines.begin_create_or_update(
        RG, "busy", vm_body("busy", make_nic(clients, emulator, "busy-nic"))).result()
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.disks.begin_delete(RG, "busy-0-data-disk")
    assert caught.value.status_code == 409 and caught.value.error.code == "OperationNotAllowed"
    assert caught.value.error.message == f"Disk busy-0-data-disk is attached to VM {vm.id}."
    assert clients.compute.disks.get(RG, "busy-0-data-disk").disk_state == "Attached"


def test_an_attach_without_a_disk_id_is_a_bad_request(emulator: EmulatorHandle, clients: SyncClients) -> None:
    body = vm_body("noid", make_nic(clients, emulator, "noid-nic"), data_disks=0, attach=[attach_disk(0, "x")])
    body.storage_profile.data_disks[0].managed_disk = None
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(RG, "noid", body)
    assert caught.value.status_code == 400 and caught.value.error.code == "InvalidParameter"
    with pytest.raises(ResourceNotFoundError):
        clients.compute.virtual_machines.get(RG, "noid")
