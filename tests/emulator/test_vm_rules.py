"""Azure's VM/NIC/disk rules through the real SDK: attachments, cascades, NicInUse, failed creates."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError

from tests.emulator.builders import RG, vm_body
from tests.emulator.steps import make_nic
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def by_name(emulator: EmulatorHandle, type_contains: str) -> dict[str, dict]:
    return {r["name"]: r for r in emulator.resources(type_contains)}


def test_vm_put_with_missing_nic_is_rejected(emulator: EmulatorHandle, clients: SyncClients) -> None:
    missing = f"{emulator.subnet_id.split('/providers/')[0]}/providers/Microsoft.Network/networkInterfaces/nope"
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(RG, "vm-x", vm_body("vm-x", missing))
    assert caught.value.status_code == 400
    assert caught.value.error.code == "InvalidResourceReference"
    assert emulator.resources("virtualMachines") == [] and emulator.resources("disks") == []


def test_vm_creates_its_disks_and_tracks_attachments(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = make_nic(clients, emulator, "att-nic")
    vm = clients.compute.virtual_machines.begin_create_or_update(
        RG, "att", vm_body("att", nic_id, data_disks=2)).result()
    nic = clients.network.network_interfaces.get(RG, "att-nic")
    assert nic.virtual_machine.id == vm.id
    disks = {d.name: d for d in clients.compute.disks.list_by_resource_group(RG)}
    assert set(disks) == {"att-os-disk", "att-0-data-disk", "att-1-data-disk"}
    assert all(d.managed_by == vm.id and d.disk_state == "Attached" for d in disks.values())
    assert disks["att-1-data-disk"].disk_size_gb == 10 and disks["att-os-disk"].os_type == "Linux"
    assert vm.storage_profile.os_disk.managed_disk.id == disks["att-os-disk"].id


def test_delete_option_delete_cascades(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = make_nic(clients, emulator, "cas-nic")
    clients.compute.virtual_machines.begin_create_or_update(RG, "cas", vm_body("cas", nic_id)).result()
    clients.compute.virtual_machines.begin_delete(RG, "cas").result()
    # The delete operation reports success only after the cascades.
    assert emulator.resources("virtualMachines") == []
    assert emulator.resources("networkInterfaces") == []
    assert emulator.resources("disks") == []


def test_delete_option_detach_keeps_and_detaches(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = make_nic(clients, emulator, "det-nic")
    clients.compute.virtual_machines.begin_create_or_update(
        RG, "det", vm_body("det", nic_id, delete_option="Detach")).result()
    clients.compute.virtual_machines.begin_delete(RG, "det").result()
    assert clients.network.network_interfaces.get(RG, "det-nic").virtual_machine is None
    disks = list(clients.compute.disks.list_by_resource_group(RG))
    assert len(disks) == 2
    assert all(d.managed_by is None and d.disk_state == "Unattached" for d in disks)
    clients.network.network_interfaces.begin_delete(RG, "det-nic").result()
    for disk in disks:
        clients.compute.disks.begin_delete(RG, disk.name).result()
    assert emulator.resources("networkInterfaces") == [] and emulator.resources("disks") == []


def test_attached_nic_cannot_be_deleted(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = make_nic(clients, emulator, "use-nic")
    vm = clients.compute.virtual_machines.begin_create_or_update(RG, "use", vm_body("use", nic_id)).result()
    with pytest.raises(HttpResponseError) as caught:
        clients.network.network_interfaces.begin_delete(RG, "use-nic")
    assert caught.value.status_code == 400 and caught.value.error.code == "NicInUse"
    assert vm.id in caught.value.error.message
    # ...nor attached to a second VM.
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(RG, "use2", vm_body("use2", nic_id))
    assert caught.value.error.code == "NicInUse"


def test_attached_disk_cannot_be_deleted(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = make_nic(clients, emulator, "dsk-nic")
    clients.compute.virtual_machines.begin_create_or_update(RG, "dsk", vm_body("dsk", nic_id)).result()
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.disks.begin_delete(RG, "dsk-os-disk")
    assert caught.value.status_code == 409 and caught.value.error.code == "OperationNotAllowed"


def test_update_adds_a_data_disk(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = make_nic(clients, emulator, "upd-nic")
    clients.compute.virtual_machines.begin_create_or_update(RG, "upd", vm_body("upd", nic_id, data_disks=1)).result()
    updated = clients.compute.virtual_machines.begin_create_or_update(
        RG, "upd", vm_body("upd", nic_id, data_disks=2)).result()
    assert [d.name for d in updated.storage_profile.data_disks] == ["upd-0-data-disk", "upd-1-data-disk"]
    assert by_name(emulator, "disks")["upd-1-data-disk"]["diskState"] == "Attached"
    assert len(emulator.resources("disks")) == 3
