"""A VM's encryption, ephemeral OS disk and placement fields through the real SDK: stored and returned in Azure's
shapes, and refused as Azure refuses them (emulator/compute/vm_placement.py)."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute import models as cm

from emulator.compute.compute_references import ENCRYPTION_AT_HOST_FEATURE, SEED_AVSET, SEED_CRG, SEED_DES, SEED_PPG
from tests.emulator.builders import RG, vm_body
from tests.emulator.steps import make_nic
from tests.support.arm_http import arm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

DES, CRG, PPG, AVSET = SEED_DES, SEED_CRG, SEED_PPG, SEED_AVSET


def _create(clients: SyncClients, emulator: EmulatorHandle, name: str, vm: cm.VirtualMachine) -> cm.VirtualMachine:
    return clients.compute.virtual_machines.begin_create_or_update(RG, name, vm).result()


def _body(clients: SyncClients, emulator: EmulatorHandle, name: str, **kwargs: object) -> cm.VirtualMachine:
    return vm_body(name, make_nic(clients, emulator, f"{name}-nic"), **kwargs)


def _refused(clients: SyncClients, name: str, vm: cm.VirtualMachine) -> HttpResponseError:
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(RG, name, vm).result()
    return caught.value


def _ephemeral(vm: cm.VirtualMachine, placement: str, size_gb: int = 30) -> cm.VirtualMachine:
    os_disk = vm.storage_profile.os_disk
    os_disk.diff_disk_settings = cm.DiffDiskSettings(option="Local", placement=placement)
    os_disk.caching, os_disk.disk_size_gb = "ReadOnly", size_gb
    return vm


def test_placement_references_are_stored_and_returned(emulator: EmulatorHandle, clients: SyncClients) -> None:
    vm = _body(clients, emulator, "placed")
    vm.capacity_reservation = cm.CapacityReservationProfile(capacity_reservation_group=cm.SubResource(id=CRG))
    vm.proximity_placement_group = cm.SubResource(id=PPG)
    vm.availability_set = cm.SubResource(id=AVSET)
    _create(clients, emulator, "placed", vm)
    got = clients.compute.virtual_machines.get(RG, "placed")
    assert got.capacity_reservation.capacity_reservation_group.id == CRG
    assert got.proximity_placement_group.id == PPG and got.availability_set.id == AVSET


@pytest.mark.parametrize("section", ["capacity_reservation", "proximity_placement_group", "availability_set"])
def test_a_placement_reference_to_nothing_is_refused(emulator: EmulatorHandle, clients: SyncClients,
                                                     section: str) -> None:
    kind = {"capacity_reservation": "capacityReservationGroups", "proximity_placement_group":
            "proximityPlacementGroups", "availability_set": "availabilitySets"}[section]
    missing = f"/subscriptions/{emulator.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Compute/{kind}/nope"
    vm = _body(clients, emulator, "nowhere")
    ref = cm.SubResource(id=missing)
    setattr(vm, section, cm.CapacityReservationProfile(capacity_reservation_group=ref)
            if section == "capacity_reservation" else ref)
    refused = _refused(clients, "nowhere", vm)
    assert refused.status_code == 400 and refused.error.code == "InvalidResourceReference"
    assert missing in refused.error.message and emulator.resources("virtualMachines") == []
    emulator.add_reference(missing)  # the control API makes it exist: the same VM is accepted
    assert _create(clients, emulator, "nowhere", vm).provisioning_state == "Succeeded"


def test_a_zonal_or_spot_vm_is_refused_in_an_availability_set(emulator: EmulatorHandle, clients: SyncClients) -> None:
    zonal = _body(clients, emulator, "zonal", zones=["1"])
    zonal.availability_set = cm.SubResource(id=AVSET)
    refused = _refused(clients, "zonal", zonal)
    assert (refused.status_code, refused.error.code) == (400, "InvalidParameter")
    assert "Availability Zone" in refused.error.message
    spot = _body(clients, emulator, "spot", eviction_policy="Delete")
    spot.availability_set = cm.SubResource(id=AVSET)
    assert "Spot" in _refused(clients, "spot", spot).error.message


def test_encryption_at_host_is_stored_and_refused_without_the_feature(emulator: EmulatorHandle,
                                                                      clients: SyncClients) -> None:
    vm = _body(clients, emulator, "eah")
    vm.security_profile = cm.SecurityProfile(encryption_at_host=True)
    emulator.register_feature(ENCRYPTION_AT_HOST_FEATURE, registered=False)
    refused = _refused(clients, "eah", vm)
    assert (refused.status_code, refused.error.code) == (400, "InvalidParameter")
    assert refused.error.target == "securityProfile.encryptionAtHost"
    assert "'Microsoft.Compute/EncryptionAtHost' feature is not enabled" in refused.error.message
    emulator.register_feature(ENCRYPTION_AT_HOST_FEATURE)  # registered (the seed's default): accepted
    assert _create(clients, emulator, "eah", vm).security_profile.encryption_at_host is True


def test_a_disk_encryption_set_encrypts_the_disks_the_vm_creates(emulator: EmulatorHandle,
                                                                 clients: SyncClients) -> None:
    vm = _body(clients, emulator, "cmk", data_disks=2)
    for disk in [vm.storage_profile.os_disk, *vm.storage_profile.data_disks]:
        disk.managed_disk.disk_encryption_set = cm.DiskEncryptionSetParameters(id=DES)
    created = _create(clients, emulator, "cmk", vm)
    assert created.storage_profile.os_disk.managed_disk.disk_encryption_set.id == DES
    for name in ("cmk-os-disk", "cmk-0-data-disk", "cmk-1-data-disk"):
        encryption = clients.compute.disks.get(RG, name).encryption
        assert (encryption.type, encryption.disk_encryption_set_id) == ("EncryptionAtRestWithCustomerKey", DES)


def test_a_disk_encryption_set_that_does_not_exist_is_refused(emulator: EmulatorHandle, clients: SyncClients) -> None:
    missing = DES.replace("azmc-des", "gone")
    vm = _body(clients, emulator, "nodes")
    vm.storage_profile.data_disks[0].managed_disk.disk_encryption_set = cm.DiskEncryptionSetParameters(id=missing)
    refused = _refused(clients, "nodes", vm)
    assert (refused.status_code, refused.error.code) == (400, "BadRequest")
    assert refused.error.message == f"DiskEncryptionSet '{missing}' was not found."
    assert emulator.resources("disks") == []


def test_an_ephemeral_os_disk_is_no_managed_disk_and_cannot_be_deallocated(emulator: EmulatorHandle,
                                                                           clients: SyncClients) -> None:
    vm = _ephemeral(_body(clients, emulator, "eph", vm_size="Standard_D2s_v3"), "CacheDisk")
    created = _create(clients, emulator, "eph", vm)
    os_disk = created.storage_profile.os_disk
    assert (os_disk.diff_disk_settings.option, os_disk.diff_disk_settings.placement) == ("Local", "CacheDisk")
    assert os_disk.caching == "ReadOnly" and os_disk.delete_option == "Delete"
    assert [d["name"] for d in emulator.resources("disks")] == ["eph-0-data-disk"]  # no OS disk resource
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_deallocate(RG, "eph").result()
    assert (caught.value.status_code, caught.value.error.code) == (409, "OperationNotAllowed")
    clients.compute.virtual_machines.begin_power_off(RG, "eph").result()  # a power-off is allowed
    clients.compute.virtual_machines.begin_delete(RG, "eph").result()
    assert emulator.resources("virtualMachines") == []


@pytest.mark.parametrize(("size", "placement", "size_gb", "message"), [
    ("Standard_D2s_v3", "CacheDisk", 64, "OS disk of Ephemeral VM with size greater than 50 GB is not allowed for "
                                         "VM size Standard_D2s_v3 when the DiffDiskPlacement is CacheDisk."),
    ("Standard_D2s_v3", "ResourceDisk", 30, "greater than 16 GB is not allowed for VM size Standard_D2s_v3"),
    ("Standard_D2s_v5", "CacheDisk", 30, "The Diff Disk Placement of type 'CacheDisk' is not supported for VM size "
                                         "Standard_D2s_v5."),
    ("Standard_D2ds_v5", "NvmeDisk", 30, "'NvmeDisk' is not supported"),
])
def test_an_ephemeral_os_disk_must_fit_the_sizes_local_disk(emulator: EmulatorHandle, clients: SyncClients, size: str,
                                                             placement: str, size_gb: int, message: str) -> None:
    refused = _refused(clients, "big", _ephemeral(_body(clients, emulator, "big", vm_size=size), placement, size_gb))
    assert (refused.status_code, refused.error.code) == (409, "NotSupported")
    assert message in refused.error.message
    assert emulator.resources("virtualMachines") == [] and emulator.resources("disks") == []


def test_an_ephemeral_os_disk_that_fits_the_resource_disk_is_accepted(emulator: EmulatorHandle,
                                                                       clients: SyncClients) -> None:
    vm = _ephemeral(_body(clients, emulator, "tmp", vm_size="Standard_D2ds_v5"), "ResourceDisk", 64)
    assert _create(clients, emulator, "tmp", vm).storage_profile.os_disk.diff_disk_settings.placement == "ResourceDisk"


@pytest.mark.parametrize("placement, zone", [
    (cm.Placement(zone_placement_policy="Any"), "1"),
    (cm.Placement(zone_placement_policy="Any", include_zones=["3", "2"]), "2"),
    (cm.Placement(zone_placement_policy="Any", exclude_zones=["1"]), "2"),
])
def test_automatic_zone_placement_puts_the_vm_in_an_allowed_zone(emulator: EmulatorHandle, clients: SyncClients,
                                                                 placement: cm.Placement, zone: str) -> None:
    vm = _body(clients, emulator, "anywhere")
    vm.placement = placement
    created = _create(clients, emulator, "anywhere", vm)
    assert created.zones == [zone] and created.placement.zone_placement_policy == "Any"
    _create(clients, emulator, "anywhere", vm)  # the same PUT again, still without zones
    assert clients.compute.virtual_machines.get(RG, "anywhere").zones == [zone]  # the zone picked stays


def test_automatic_zone_placement_that_allows_no_zone_is_refused(emulator: EmulatorHandle,
                                                                 clients: SyncClients) -> None:
    vm = _body(clients, emulator, "nowhere")
    vm.placement = cm.Placement(zone_placement_policy="Any", include_zones=["1"], exclude_zones=["1"])
    error = _refused(clients, "nowhere", vm)
    assert error.status_code == 400 and error.error.code == "InvalidParameter"



def test_flexible_sizing_without_a_size_gets_one(emulator: EmulatorHandle, clients: SyncClients) -> None:
    body = _body(clients, emulator, "flexible").as_dict()
    body["properties"]["hardwareProfile"] = {"flexProfile": {"enabled": True}}
    path = f"/subscriptions/{emulator.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Compute/virtualMachines"
    answer = arm(emulator, "PUT", f"{path}/flexible", body, api_version="2026-04-01")
    assert answer.status == 201
    assert answer.body["properties"]["hardwareProfile"] == {"vmSize": "Standard_D2s_v5",
                                                            "flexProfile": {"enabled": True}}
