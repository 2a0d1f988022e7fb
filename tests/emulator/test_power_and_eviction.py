"""Power states as the instance view shows them, a start that fails AllocationFailed, and Spot eviction."""

from __future__ import annotations

import json
import urllib.error

import pytest
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError

from tests.emulator.builders import RG, attach_disk, empty_disk
from tests.emulator.steps import make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

ALLOCATION_FAILED = ("Allocation failed. We do not have sufficient capacity for the requested VM size in this region. "
                     "Read more about improving likelihood of allocation success at http://aka.ms/allocation-guidance")



def codes(clients: SyncClients, name: str) -> list[str]:
    return [s.code for s in clients.compute.virtual_machines.instance_view(RG, name).statuses]


def disk_ids(clients: SyncClients) -> dict[str, str]:
    return {d.name: d.unique_id for d in clients.compute.disks.list_by_resource_group(RG)}


@pytest.mark.parametrize(("verb", "power"), [("begin_power_off", "stopped"), ("begin_deallocate", "deallocated")])
def test_stopped_vm_starts_again_with_same_id_and_disks(
        emulator: EmulatorHandle, clients: SyncClients, verb: str, power: str) -> None:
    vm = make_vm(clients, emulator, "pw")
    disks = disk_ids(clients)
    getattr(clients.compute.virtual_machines, verb)(RG, "pw").result()
    assert codes(clients, "pw") == ["ProvisioningState/succeeded", f"PowerState/{power}"]
    clients.compute.virtual_machines.begin_start(RG, "pw").result()
    assert codes(clients, "pw") == ["ProvisioningState/succeeded", "PowerState/running"]
    again = clients.compute.virtual_machines.get(RG, "pw")
    assert again.id == vm.id and again.vm_id == vm.vm_id and disk_ids(clients) == disks


def test_start_failing_allocation_leaves_a_failed_deallocated_vm(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "full")
    clients.compute.virtual_machines.begin_deallocate(RG, "full").result()
    emulator.add_fault("virtualMachines.start", name="full", status=409, code="AllocationFailed", stage="operation")
    poller = clients.compute.virtual_machines.begin_start(RG, "full")
    with pytest.raises(HttpResponseError) as caught:
        poller.result()
    assert caught.value.error.code == "AllocationFailed" and caught.value.error.message == ALLOCATION_FAILED
    vm = clients.compute.virtual_machines.get(RG, "full", expand="instanceView")
    assert vm.provisioning_state == "Failed"
    assert [s.code for s in vm.instance_view.statuses] == \
        ["ProvisioningState/failed/AllocationFailed", "PowerState/deallocated"]
    # Capacity came back: the next start succeeds and clears the failure.
    clients.compute.virtual_machines.begin_start(RG, "full").result()
    assert codes(clients, "full") == ["ProvisioningState/succeeded", "PowerState/running"]


def test_evicting_a_deallocate_spot_vm_keeps_it_deallocated(emulator: EmulatorHandle, clients: SyncClients) -> None:
    vm = make_vm(clients, emulator, "spot-d", eviction_policy="Deallocate")
    disks = disk_ids(clients)
    assert emulator.evict(vm.id) == {"id": vm.id, "evictionPolicy": "Deallocate"}
    assert codes(clients, "spot-d") == ["ProvisioningState/succeeded", "PowerState/deallocated"]
    assert [r["powerState"] for r in emulator.resources("virtualMachines")] == ["deallocated"]
    clients.compute.virtual_machines.begin_start(RG, "spot-d").result()
    assert clients.compute.virtual_machines.get(RG, "spot-d").vm_id == vm.vm_id and disk_ids(clients) == disks


def test_evicting_a_delete_spot_vm_deletes_it_by_delete_options(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    data_id = clients.compute.disks.begin_create_or_update(RG, "precious", empty_disk()).result().id
    unique_id = clients.compute.disks.get(RG, "precious").unique_id
    vm = make_vm(clients, emulator, "spot-x", eviction_policy="Delete", data_disks=1,
                 attach=[attach_disk(1, data_id, delete_option="Detach")])
    assert emulator.evict(vm.id)["evictionPolicy"] == "Delete"
    with pytest.raises(ResourceNotFoundError):
        clients.compute.virtual_machines.get(RG, "spot-x")
    # OS disk, Empty data disk and NIC had deleteOption Delete; the attached disk survives.
    assert emulator.resources("networkInterfaces") == []
    disk = clients.compute.disks.get(RG, "precious")
    assert [d["name"] for d in emulator.resources("disks")] == ["precious"]
    assert disk.disk_state == "Unattached" and disk.unique_id == unique_id


def evict_error(emulator: EmulatorHandle, body: object) -> tuple[int, dict]:
    with pytest.raises(urllib.error.HTTPError) as caught:
        emulator._call("POST", "/_emulator/evict", body)
    return caught.value.code, json.loads(caught.value.read())["error"]


def test_eviction_is_refused_for_what_cannot_be_evicted(emulator: EmulatorHandle, clients: SyncClients) -> None:
    regular = make_vm(clients, emulator, "regular")
    status, error = evict_error(emulator, {"id": regular.id})
    assert (status, error["code"]) == (400, "OperationNotAllowed") and "priority Regular" in error["message"]
    spot = make_vm(clients, emulator, "spot-off", eviction_policy="Deallocate")
    clients.compute.virtual_machines.begin_deallocate(RG, "spot-off").result()
    status, error = evict_error(emulator, {"resourceGroup": RG, "name": "spot-off"})
    assert (status, error["code"]) == (400, "OperationNotAllowed") and "deallocated" in error["message"]
    assert evict_error(emulator, {"id": spot.id.replace("spot-off", "nope")})[0] == 404
    assert evict_error(emulator, {"name": "spot-off"})[0] == 400
    assert evict_error(emulator, ["not", "an", "object"])[0] == 400
