"""VM PATCH (`virtual_machines.begin_update`) and NIC `update_tags` through the real SDK."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError
from azure.mgmt.compute import models as cm
from azure.mgmt.network import models as nm

from tests.emulator.builders import RG, attach_disk, empty_disk, nic_body, vm_body
from tests.emulator.steps import make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def keep_disks_update(vm: cm.VirtualMachine) -> cm.VirtualMachineUpdate:
    """Every disk of `vm` set to deleteOption Detach: the entries name only the LUN and the option."""
    return cm.VirtualMachineUpdate(storage_profile=cm.StorageProfile(
        os_disk=cm.OSDisk(create_option="FromImage", delete_option="Detach"),
        data_disks=[cm.DataDisk(lun=d.lun, create_option="Attach", delete_option="Detach")
                    for d in vm.storage_profile.data_disks],
    ))


def test_patch_replaces_tags_and_keeps_the_rest(emulator: EmulatorHandle, clients: SyncClients) -> None:
    vm = make_vm(clients, emulator, "tagged", data_disks=2)
    poller = clients.compute.virtual_machines.begin_update(
        RG, "tagged", cm.VirtualMachineUpdate(tags={"azmc-owner": "ns/machine/rg/tagged"}))
    updated = poller.result()
    assert updated.tags == {"azmc-owner": "ns/machine/rg/tagged"}
    assert updated.provisioning_state == "Succeeded"
    assert updated.vm_id == vm.vm_id and updated.hardware_profile.vm_size == "Standard_D2s_v5"
    assert [d.managed_disk.id for d in updated.storage_profile.data_disks] == \
        [d.managed_disk.id for d in vm.storage_profile.data_disks]
    assert updated.os_profile.admin_password is None


def test_patch_delete_options_then_delete_keeps_every_disk(emulator: EmulatorHandle, clients: SyncClients) -> None:
    vm = make_vm(clients, emulator, "keeper", data_disks=2)
    unique_ids = {d.name: d.unique_id for d in clients.compute.disks.list_by_resource_group(RG)}
    updated = clients.compute.virtual_machines.begin_update(RG, "keeper", keep_disks_update(vm)).result()
    assert updated.storage_profile.os_disk.delete_option == "Detach"
    assert [(d.lun, d.delete_option, d.name) for d in updated.storage_profile.data_disks] == \
        [(0, "Detach", "keeper-0-data-disk"), (1, "Detach", "keeper-1-data-disk")]
    clients.compute.virtual_machines.begin_delete(RG, "keeper").result()
    after = {d.name: d for d in clients.compute.disks.list_by_resource_group(RG)}
    assert {name: d.unique_id for name, d in after.items()} == unique_ids
    assert all(d.disk_state == "Unattached" and d.managed_by is None for d in after.values())


def test_a_failed_vm_can_be_patched(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = clients.network.network_interfaces.begin_create_or_update(
        RG, "broken-nic", nic_body(emulator.subnet_id)).result().id
    emulator.add_fault("virtualMachines.put", name="broken", status=409, code="AllocationFailed", stage="operation")
    with pytest.raises(HttpResponseError):
        clients.compute.virtual_machines.begin_create_or_update(RG, "broken", vm_body("broken", nic_id)).result()
    vm = clients.compute.virtual_machines.get(RG, "broken")
    assert vm.provisioning_state == "Failed"
    updated = clients.compute.virtual_machines.begin_update(RG, "broken", keep_disks_update(vm)).result()
    assert updated.storage_profile.data_disks[0].delete_option == "Detach"
    clients.compute.virtual_machines.begin_delete(RG, "broken").result()
    assert {d["name"] for d in emulator.resources("disks")} == {"broken-os-disk", "broken-0-data-disk"}


def test_a_failed_patch_leaves_the_vm_failed(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "flaky")
    emulator.add_fault("virtualMachines.patch", name="flaky", status=500, code="InternalExecutionError",
                       stage="operation")
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_update(RG, "flaky", cm.VirtualMachineUpdate(tags={"a": "b"})).result()
    assert caught.value.error.code == "InternalExecutionError"
    view = clients.compute.virtual_machines.instance_view(RG, "flaky")
    assert view.statuses[0].code == "ProvisioningState/failed/InternalExecutionError"
    assert view.statuses[1].code == "PowerState/running"


def test_patch_detaches_a_disk_and_attaches_another(emulator: EmulatorHandle, clients: SyncClients) -> None:
    vm = make_vm(clients, emulator, "swap", data_disks=1)
    spare_id = clients.compute.disks.begin_create_or_update(RG, "spare", empty_disk()).result().id
    update = cm.VirtualMachineUpdate(storage_profile=cm.StorageProfile(data_disks=[
        cm.DataDisk(lun=0, create_option="Attach", to_be_detached=True),
        attach_disk(5, spare_id),
    ]))
    updated = clients.compute.virtual_machines.begin_update(RG, "swap", update).result()
    assert [(d.lun, d.name) for d in updated.storage_profile.data_disks] == [(5, "spare")]
    assert clients.compute.disks.get(RG, "swap-0-data-disk").disk_state == "Unattached"
    assert clients.compute.disks.get(RG, "spare").managed_by == vm.id


def test_patch_cannot_change_the_image(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "fixed")
    update = cm.VirtualMachineUpdate(storage_profile=cm.StorageProfile(image_reference=cm.ImageReference(
        publisher="Canonical", offer="ubuntu-22_04-lts", sku="server", version="latest")))
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_update(RG, "fixed", update)
    assert caught.value.status_code == 409 and caught.value.error.code == "PropertyChangeNotAllowed"
    assert caught.value.error.message == "Changing property 'imageReference' is not allowed."


def test_patch_of_a_missing_vm_is_not_found(clients: SyncClients) -> None:
    with pytest.raises(ResourceNotFoundError):
        clients.compute.virtual_machines.begin_update(RG, "nobody", cm.VirtualMachineUpdate(tags={}))


def test_nic_update_tags_replaces_the_tags(emulator: EmulatorHandle, clients: SyncClients) -> None:
    before = clients.network.network_interfaces.begin_create_or_update(
        RG, "t-nic", nic_body(emulator.subnet_id, tags={"old": "1"})).result()
    after = clients.network.network_interfaces.update_tags(RG, "t-nic", nm.TagsObject(tags={"new": "2"}))
    assert after.tags == {"new": "2"}
    assert after.ip_configurations[0].private_ip_address == before.ip_configurations[0].private_ip_address
    assert clients.network.network_interfaces.get(RG, "t-nic").tags == {"new": "2"}
    with pytest.raises(ResourceNotFoundError):
        clients.network.network_interfaces.update_tags(RG, "no-nic", nm.TagsObject(tags={}))


def test_a_disk_marked_to_detach_is_listed_until_the_update_ends(emulator: EmulatorHandle,
                                                                  clients: SyncClients) -> None:
    make_vm(clients, emulator, "leaving", data_disks=1)
    update = cm.VirtualMachineUpdate(storage_profile=cm.StorageProfile(data_disks=[
        cm.DataDisk(lun=0, create_option="Attach", to_be_detached=True, detach_option="ForceDetach")]))
    poller = clients.compute.virtual_machines.begin_update(RG, "leaving", update)
    answered = poller.polling_method()._initial_response.http_response.json()  # the PATCH's own answer
    shown = answered["properties"]["storageProfile"]["dataDisks"]
    assert [(d["lun"], d["toBeDetached"], d["detachOption"]) for d in shown] == [(0, True, "ForceDetach")]
    assert clients.compute.disks.get(RG, "leaving-0-data-disk").disk_state == "Unattached"
    assert poller.result().storage_profile.data_disks == []
