"""Capacity reservation groups and their capacity reservations (Microsoft.Compute), in Azure's shape, and what
a VM in a group consumes.

A reservation holds `sku.capacity` VMs of one size (`sku.name`) in one zone, or regional without `zones`
(Microsoft's `CapacityReservation_*` examples). A VM whose `capacityReservation.capacityReservationGroup` names
the group is associated with the reservation of its size and zone, and is allocated against it while it is not
deallocated. Azure lets more VMs be allocated than reserved ("Capacity reservation overallocation": the ones
beyond the reserved quantity run without the capacity SLA), so a full reservation refuses nothing; the instance
view then lists more `virtualMachinesAllocated` than its `currentCapacity`. A VM whose size and zone have no
reservation in the group is refused (Azure's docs: the group must hold a reservation of the VM's size, and zone
when zonal); the code of that refusal could not be verified and is NO_RESERVATION_CODE.

Nothing is stored per VM: the utilization is read from the VMs themselves, so a deleted VM frees its unit.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from emulator.arm import arm_ids, errors
from emulator.arm.store import ResourceStore
from emulator.compute.compute_references import CAPACITY_RESERVATION_GROUPS, seed_reference_id

GROUP_TYPE = CAPACITY_RESERVATION_GROUPS
RESERVATION_TYPE = f"{CAPACITY_RESERVATION_GROUPS}/capacityReservations"
VM_TYPE = "Microsoft.Compute/virtualMachines"
# Azure's refusal of a VM whose size (and zone) has no reservation in its group: not found in Microsoft's
# published docs or examples, so this is a reading, kept in one place (emulator/README.md says so).
NO_RESERVATION_CODE = "InvalidParameter"
NO_RESERVATION_TARGET = "capacityReservation.capacityReservationGroup"
# The sizes the tests and examples name with the seed's group (examples/machine-production.yaml: D4s_v5).
SEED_RESERVED_SIZES, SEED_RESERVED = ("Standard_D2s_v3", "Standard_D2s_v5", "Standard_D4s_v5"), 10
_SUCCEEDED = [{"code": "ProvisioningState/succeeded", "level": "Info", "displayStatus": "Provisioning succeeded"}]


def _body(resource_id: str, name: str, type_name: str, request: dict[str, Any]) -> dict[str, Any]:
    """What ARM echoes of a PUT (emulator/arm/common.py's base_body, which this module's place in the state
    cannot import)."""
    if not request.get("location"):
        raise errors.invalid("The 'location' property is required for this definition.", code="LocationRequired")
    body: dict[str, Any] = {"id": resource_id, "name": name, "type": type_name, "location": request["location"]}
    body.update({k: request[k] for k in ("tags", "zones") if request.get(k) is not None})
    return body


def _now() -> str:
    return datetime.now(UTC).isoformat()


def vm_group(vm_body: dict[str, Any]) -> str:
    """The id of the group a VM body names ("" for none)."""
    profile = (vm_body.get("properties") or {}).get("capacityReservation") or {}
    return str((profile.get("capacityReservationGroup") or {}).get("id") or "")


def _vm_size(vm_body: dict[str, Any]) -> str:
    return str(((vm_body.get("properties") or {}).get("hardwareProfile") or {}).get("vmSize") or "")


def _matches(reservation: dict[str, Any], vm_size: str, zones: list[str] | None) -> bool:
    """A reservation serves a VM of its size in its zone; a regional one (no zones) only regional VMs."""
    return (str(reservation["sku"]["name"]).lower() == vm_size.lower()
            and sorted(reservation.get("zones") or []) == sorted(zones or []))


@dataclass
class CapacityReservations:
    """Groups and reservations by lower-case id, as PUT (and the seed) made them."""

    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    reservations: dict[str, dict[str, Any]] = field(default_factory=dict)

    def clear(self) -> None:
        self.groups.clear()
        self.reservations.clear()

    def seed(self, subscription: str, location: str) -> None:
        """The seed's group (compute_references.py) reserving SEED_RESERVED of each of SEED_RESERVED_SIZES (the
        sizes the tests and examples use by default), regional."""
        group_id = seed_reference_id(GROUP_TYPE, subscription)
        self.put_group(group_id, arm_ids.last_segment(group_id), {"location": location})
        for size in SEED_RESERVED_SIZES:
            self.put_reservation(group_id, size.lower(), {"location": location, "sku": {
                "name": size, "capacity": SEED_RESERVED}})

    def put_group(self, group_id: str, name: str, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        existed = arm_ids.key(group_id) in self.groups
        body = _body(group_id, name, GROUP_TYPE, request)
        body["properties"] = {k: v for k, v in (request.get("properties") or {}).items()
                              if k in ("sharingProfile", "reservationType")}
        self.groups[arm_ids.key(group_id)] = body
        return (200 if existed else 201), body

    def group(self, group_id: str) -> dict[str, Any] | None:
        return self.groups.get(arm_ids.key(group_id))

    def put_reservation(self, group_id: str, name: str, request: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        group = self.group(group_id)
        if group is None:
            raise errors.resource_not_found(GROUP_TYPE, arm_ids.last_segment(group_id),
                                            arm_ids.parse(group_id).get("resourcegroups", ""))
        body = _body(f"{group['id']}/capacityReservations/{name}", name, RESERVATION_TYPE, request)
        location = body["location"]
        if location.lower() != str(group["location"]).lower():
            raise errors.invalid(f"The location '{location}' of the capacity reservation does not match the "
                                 f"location '{group['location']}' of its capacity reservation group.",
                                 target="location")
        sku = request.get("sku") or {}
        if not sku.get("name") or not isinstance(sku.get("capacity"), int) or sku["capacity"] < 0:
            raise errors.invalid("The capacity reservation's 'sku' needs a VM size as 'name' and a 'capacity' of "
                                 "0 or more.", target="sku")
        existing = self.reservations.get(arm_ids.key(body["id"]))
        if existing is not None and sorted(existing.get("zones") or []) != sorted(request.get("zones") or []):
            raise errors.invalid("The zone of a capacity reservation can be set only when it is created.",
                                 target="zones")
        body["sku"] = {"name": sku["name"], "capacity": sku["capacity"], **({"tier": sku["tier"]}
                                                                           if sku.get("tier") else {})}
        old = (existing or {}).get("properties") or {}
        body["properties"] = {"reservationId": old.get("reservationId") or str(uuid.uuid4()),
                              "platformFaultDomainCount": 1, "provisioningState": "Succeeded",
                              "provisioningTime": _now(), "timeCreated": old.get("timeCreated") or _now()}
        self.reservations[arm_ids.key(body["id"])] = body
        return (200 if existing is not None else 201), body

    def in_group(self, group_id: str) -> list[dict[str, Any]]:
        prefix = arm_ids.key(group_id) + "/capacityreservations/"
        return [r for key, r in self.reservations.items() if key.startswith(prefix)]

    def reservation(self, reservation_id: str) -> dict[str, Any] | None:
        return self.reservations.get(arm_ids.key(reservation_id))

    # ---- what the VMs consume

    def check_vm(self, vm_body: dict[str, Any]) -> None:
        """Refuse a VM PUT naming a served group that holds no reservation of the VM's size and zone."""
        group_id = vm_group(vm_body)
        if not group_id or self.group(group_id) is None:
            return
        size, zones = _vm_size(vm_body), vm_body.get("zones")
        if not any(_matches(r, size, zones) for r in self.in_group(group_id)):
            where = f"zone {zones[0]}" if zones else "no zone (regional)"
            raise errors.invalid(f"The capacity reservation group '{group_id}' has no capacity reservation of VM "
                                 f"size '{size}' in {where}.", target=NO_RESERVATION_TARGET, code=NO_RESERVATION_CODE)

    def _vms_of(self, store: ResourceStore, reservation: dict[str, Any]) -> tuple[list[str], list[str]]:
        """(associated, allocated) VM ids of a reservation: every VM of its group, size and zone; those not
        deallocated, in creation order."""
        group_key = arm_ids.key(reservation["id"].rsplit("/capacityReservations/", 1)[0])
        associated, allocated = [], []
        for vm in store.of_type(VM_TYPE):
            if arm_ids.key(vm_group(vm.body) or "-") != group_key:
                continue
            if not _matches(reservation, _vm_size(vm.body), vm.body.get("zones")):
                continue
            associated.append(vm.id)
            if vm.extra.get("power") != "deallocated":
                allocated.append(vm.id)
        return associated, allocated

    def _utilization(self, store: ResourceStore, reservation: dict[str, Any]) -> dict[str, Any]:
        _, allocated = self._vms_of(store, reservation)
        return {"currentCapacity": reservation["sku"]["capacity"],
                "virtualMachinesAllocated": [{"id": vm_id} for vm_id in allocated]}

    def reservation_view(self, store: ResourceStore, reservation: dict[str, Any], expand: bool) -> dict[str, Any]:
        body = {**reservation, "properties": dict(reservation["properties"])}
        associated, _ = self._vms_of(store, reservation)
        body["properties"]["virtualMachinesAssociated"] = [{"id": vm_id} for vm_id in associated]
        if expand:
            body["properties"]["instanceView"] = {"utilizationInfo": self._utilization(store, reservation),
                                                  "statuses": _SUCCEEDED}
        return body

    def group_view(self, store: ResourceStore, group: dict[str, Any], expand: bool) -> dict[str, Any]:
        reservations = self.in_group(group["id"])
        body = {**group, "properties": dict(group.get("properties") or {})}
        body["properties"]["capacityReservations"] = [{"id": r["id"]} for r in reservations]
        body["properties"]["virtualMachinesAssociated"] = [
            {"id": vm.id} for vm in store.of_type(VM_TYPE) if arm_ids.key(vm_group(vm.body) or "-")
            == arm_ids.key(group["id"])]
        if expand:
            shared = (body["properties"].get("sharingProfile") or {}).get("subscriptionIds") or []
            body["properties"]["instanceView"] = {
                "capacityReservations": [{"name": r["name"], "utilizationInfo": self._utilization(store, r),
                                          "statuses": _SUCCEEDED} for r in reservations],
                "sharedSubscriptionIds": shared}
        return body
