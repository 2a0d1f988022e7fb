"""Capacity reservation groups and reservations through the real SDK (emulator/compute/capacity_reservations.py):
a VM in a group takes a unit of the reservation of its size and zone, a deleted VM frees it, VMs beyond the
reserved quantity are allowed (overallocated, as Azure's docs say), and a size the group holds no reservation for
is refused."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute import models as cm

from emulator.compute.capacity_reservations import NO_RESERVATION_CODE
from emulator.seed import SEED_LOCATION
from tests.emulator.builders import RG, vm_body
from tests.emulator.steps import make_nic
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

GROUP = "crg-test"


def _reserve(clients: SyncClients, size: str, capacity: int, zones: list[str] | None = None) -> str:
    crg = clients.compute.capacity_reservation_groups.create_or_update(
        RG, GROUP, cm.CapacityReservationGroup(location=SEED_LOCATION, zones=["1", "2", "3"]))
    name = f"{size.lower()}-{(zones or ['regional'])[0]}"
    clients.compute.capacity_reservations.begin_create_or_update(
        RG, GROUP, name, cm.CapacityReservation(location=SEED_LOCATION, sku=cm.Sku(name=size, capacity=capacity),
                                                zones=zones)).result()
    return str(crg.id)


def _vm(clients: SyncClients, emulator: EmulatorHandle, name: str, group_id: str, size: str,
        zones: list[str] | None = None) -> cm.VirtualMachine:
    vm = vm_body(name, make_nic(clients, emulator, f"{name}-nic"), vm_size=size, zones=zones)
    vm.capacity_reservation = cm.CapacityReservationProfile(capacity_reservation_group=cm.SubResource(id=group_id))
    return clients.compute.virtual_machines.begin_create_or_update(RG, name, vm).result()


def _utilization(clients: SyncClients) -> dict[str, tuple[int, int]]:
    """(reserved, allocated) per reservation, from the group's instance view."""
    view = clients.compute.capacity_reservation_groups.get(RG, GROUP, expand="instanceView").instance_view
    return {r.name: (r.utilization_info.current_capacity, len(r.utilization_info.virtual_machines_allocated or []))
            for r in view.capacity_reservations}


def test_a_vm_takes_a_unit_of_its_reservation_and_its_deletion_frees_it(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    group_id = _reserve(clients, "Standard_D2as_v5", 2, ["2"])
    _reserve(clients, "Standard_D4s_v5", 1)
    _vm(clients, emulator, "r1", group_id, "Standard_D2as_v5", ["2"])
    assert _utilization(clients) == {"standard_d2as_v5-2": (2, 1), "standard_d4s_v5-regional": (1, 0)}
    reservation = clients.compute.capacity_reservations.get(RG, GROUP, "standard_d2as_v5-2", expand="instanceView")
    assert reservation.sku.name == "Standard_D2as_v5" and reservation.sku.capacity == 2 and reservation.zones == ["2"]
    assert [vm.id.rsplit("/", 1)[-1] for vm in reservation.instance_view.utilization_info.virtual_machines_allocated
            ] == ["r1"]
    assert [vm.id.rsplit("/", 1)[-1] for vm in reservation.virtual_machines_associated] == ["r1"]
    clients.compute.virtual_machines.begin_delete(RG, "r1").result()
    assert _utilization(clients)["standard_d2as_v5-2"] == (2, 0)


def test_a_full_reservation_overallocates_and_a_size_without_one_is_refused(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    group_id = _reserve(clients, "Standard_D4s_v5", 1)
    _vm(clients, emulator, "o1", group_id, "Standard_D4s_v5")
    _vm(clients, emulator, "o2", group_id, "Standard_D4s_v5")  # beyond the reserved quantity: allowed, no SLA
    assert _utilization(clients) == {"standard_d4s_v5-regional": (1, 2)}
    for size, zones in (("Standard_E2s_v5", None), ("Standard_D4s_v5", ["1"])):  # no reservation of that size/zone
        with pytest.raises(HttpResponseError) as refused:
            _vm(clients, emulator, "no", group_id, size, zones)
        assert refused.value.status_code == 400 and refused.value.error.code == NO_RESERVATION_CODE
        assert size in refused.value.error.message


def test_a_reservation_in_a_group_that_does_not_exist_is_refused(clients: SyncClients) -> None:
    with pytest.raises(HttpResponseError) as refused:
        clients.compute.capacity_reservations.begin_create_or_update(
            RG, "nothing", "r", cm.CapacityReservation(location=SEED_LOCATION, sku=cm.Sku(name="Standard_D2s_v3",
                                                                                         capacity=1))).result()
    assert refused.value.status_code == 404 and refused.value.error.code == "ResourceNotFound"
