"""Capacity loss (`/_emulator/capacity`) as Azure reports it, seen through the real compute SDK.

Allocation failures come back in the long-running operation (the PUT is accepted, the VM ends Failed with
its NIC reserved); Spot capacity and SKU restrictions are refused at once with 409 SkuNotAvailable.
"""

from __future__ import annotations

import json
import urllib.error

import pytest
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError

from emulator.compute.allocation.capacity import ALLOCATION_FAILED, ZONAL_ALLOCATION_FAILED
from tests.emulator.builders import LOCATION, RG, vm_body
from tests.emulator.steps import make_nic
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def create(clients: SyncClients, emulator: EmulatorHandle, name: str, **body: object):
    """Start creating VM `name` on a new NIC: the poller (raises at once if Azure refuses synchronously)."""
    nic_id = make_nic(clients, emulator, f"{name}-nic")
    return clients.compute.virtual_machines.begin_create_or_update(RG, name, vm_body(name, nic_id, **body))


def failed_in_operation(clients: SyncClients, emulator: EmulatorHandle, name: str, **body: object) -> HttpResponseError:
    poller = create(clients, emulator, name, **body)  # accepted: no exception here
    with pytest.raises(HttpResponseError) as caught:
        poller.result()
    vm = clients.compute.virtual_machines.get(RG, name, expand="instanceView")
    assert vm.provisioning_state == "Failed"
    assert vm.instance_view.statuses[0].code == f"ProvisioningState/failed/{caught.value.error.code}"
    return caught.value


def runs(clients: SyncClients, emulator: EmulatorHandle, name: str, **body: object) -> None:
    assert create(clients, emulator, name, **body).result().provisioning_state == "Succeeded"


def test_a_zone_without_capacity_fails_zonal_vms_there_in_the_operation_and_nowhere_else(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    entry = emulator.make_unavailable(zone="1")
    error = failed_in_operation(clients, emulator, "z1", zones=["1"])
    assert (error.error.code, error.error.message) == ("ZonalAllocationFailed", ZONAL_ALLOCATION_FAILED)
    # As Azure: the failed VM stays, holding its NIC, so azmc must clean it up before another attempt.
    nic = next(r for r in emulator.resources("networkInterfaces") if r["name"] == "z1-nic")
    assert nic["attachments"]["virtualMachine"].endswith("/virtualMachines/z1")
    runs(clients, emulator, "z2", zones=["2"])
    runs(clients, emulator, "regional")  # Azure places a regional VM in a zone that has room
    assert [(e["id"], e["hits"]) for e in emulator.capacity()] == [(entry, 1)]
    assert emulator.requests()["failed_by_operation"] == {"virtualMachines.put": 1}


def test_a_size_gone_from_the_region_fails_by_the_request_shape(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.make_unavailable(vm_size="standard_d4s_v5")  # sizes match case-insensitively
    regional = failed_in_operation(clients, emulator, "big", vm_size="Standard_D4s_v5")
    assert (regional.error.code, regional.error.message) == ("AllocationFailed", ALLOCATION_FAILED)
    zonal = failed_in_operation(clients, emulator, "big-z3", vm_size="Standard_D4s_v5", zones=["3"])
    assert zonal.error.code == "ZonalAllocationFailed"
    runs(clients, emulator, "small", vm_size="Standard_D2s_v5", zones=["3"])


def test_a_size_gone_in_one_zone_leaves_that_size_elsewhere_and_other_sizes_there(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.make_unavailable(vm_size="Standard_D2s_v5", zone="1")
    assert failed_in_operation(clients, emulator, "a", zones=["1"]).error.code == "ZonalAllocationFailed"
    runs(clients, emulator, "b", zones=["2"])
    runs(clients, emulator, "c", zones=["1"], vm_size="Standard_D4s_v5")
    runs(clients, emulator, "d")


def test_spot_capacity_gone_refuses_spot_at_once_and_regular_still_runs(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.make_unavailable(priority="Spot")
    with pytest.raises(HttpResponseError) as caught:
        create(clients, emulator, "cheap", eviction_policy="Delete")
    assert caught.value.status_code == 409 and caught.value.error.code == "SkuNotAvailable"
    assert caught.value.error.message.startswith("The requested tier for resource '/subscriptions/")
    assert f"is currently not available in location '{LOCATION}' for subscription" in caught.value.error.message
    with pytest.raises(ResourceNotFoundError):  # refused before anything was created
        clients.compute.virtual_machines.get(RG, "cheap")
    assert not next(r for r in emulator.resources("networkInterfaces") if r["name"] == "cheap-nic")["attachments"]
    runs(clients, emulator, "dear")


def test_a_code_override_gives_a_restricted_sku_or_an_overconstrained_request(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.make_unavailable(vm_size="Standard_D8s_v3", code="SkuNotAvailable")
    with pytest.raises(HttpResponseError) as caught:
        create(clients, emulator, "restricted", vm_size="Standard_D8s_v3")
    assert caught.value.status_code == 409 and caught.value.error.message == (
        "The requested VM size for resource 'Following SKUs have failed for Capacity Restrictions: "
        f"Standard_D8s_v3' is currently not available in location '{LOCATION}'. Please try another size or "
        "deploy to a different location or different zone. See https://aka.ms/azureskunotavailable for details.")
    emulator.make_unavailable(zone="2", code="OverconstrainedZonalAllocationRequest")
    error = failed_in_operation(clients, emulator, "pinned", zones=["2"])
    assert error.error.code == "OverconstrainedZonalAllocationRequest"
    assert error.error.message.endswith("Constraints applied are:\n  - Availability Zone\n  - VM Size\n")


def test_restoring_capacity_lets_the_failed_vm_be_put_again(emulator: EmulatorHandle, clients: SyncClients) -> None:
    gone = emulator.make_unavailable(zone="1")
    other = emulator.make_unavailable(vm_size="Standard_E2s_v5")
    failed_in_operation(clients, emulator, "back", zones=["1"])
    emulator.restore_capacity(gone)
    assert [e["id"] for e in emulator.capacity()] == [other]
    nic_id = clients.network.network_interfaces.get(RG, "back-nic").id  # still held by this VM
    again = clients.compute.virtual_machines.begin_create_or_update(RG, "back", vm_body("back", nic_id, zones=["1"]))
    assert again.result().provisioning_state == "Succeeded"
    emulator.restore_capacity()
    assert emulator.capacity() == []
    runs(clients, emulator, "e", vm_size="Standard_E2s_v5")


def test_starting_a_deallocated_vm_needs_capacity_a_stopped_one_does_not(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    runs(clients, emulator, "dealloc", zones=["1"])
    runs(clients, emulator, "stopped", zones=["1"])
    clients.compute.virtual_machines.begin_deallocate(RG, "dealloc").result()
    clients.compute.virtual_machines.begin_power_off(RG, "stopped").result()
    emulator.make_unavailable(zone="1")
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_start(RG, "dealloc").result()
    assert caught.value.error.code == "ZonalAllocationFailed"
    view = clients.compute.virtual_machines.instance_view(RG, "dealloc")
    assert [s.code for s in view.statuses] == ["ProvisioningState/failed/ZonalAllocationFailed",
                                               "PowerState/deallocated"]
    clients.compute.virtual_machines.begin_start(RG, "stopped").result()  # still holds its allocation
    emulator.restore_capacity()
    clients.compute.virtual_machines.begin_start(RG, "dealloc").result()
    assert clients.compute.virtual_machines.instance_view(RG, "dealloc").statuses[1].code == "PowerState/running"


@pytest.mark.parametrize("entry", [{"priority": "Cheap"}, {"code": "Nope"}, {"available": True},
                                   {"zone": "1", "colour": "red"}, ["zone"]])
def test_a_malformed_capacity_entry_is_refused(emulator: EmulatorHandle, entry: object) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        emulator._call("POST", "/_emulator/capacity", entry)
    assert caught.value.code == 400
    assert json.loads(caught.value.read())["error"]["code"] in ("InvalidCapacity", "InvalidRequestContent")
    assert emulator.capacity() == []
