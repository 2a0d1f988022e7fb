"""Virtual machines: PUT and PATCH (NICs referenced, disks created or attached), GET, DELETE with cascades.

A failed create leaves a Failed VM whose NICs are reserved; power operations and Spot eviction live
in `vm_power.py`.
"""

from __future__ import annotations

import builtins
import copy
import uuid
from typing import Any

from emulator.arm import arm_ids, errors
from emulator.arm.arm_ids import Scope
from emulator.arm.common import (
    base_body,
    deletable,
    ensure_idle,
    get_existing,
    listed,
    prepare_put,
    require_location,
    start_operation,
)
from emulator.arm.latency import duration
from emulator.arm.outcome import Outcome
from emulator.arm.store import Resource
from emulator.compute import vm_features
from emulator.compute.allocation.vm_allocation import check as check_allocation
from emulator.compute.allocation.vm_allocation import request_for, write_allocates
from emulator.compute.disks import DisksBackend
from emulator.compute.guest import start_boot
from emulator.compute.vm_bootstrap import USER_DATA, store_bootstrap, take_bootstrap, wants, with_user_data
from emulator.compute.vm_deletions import VmDeletion
from emulator.compute.vm_disks import detaching_entries, drop_detached, plan_disks, realize
from emulator.compute.vm_extensions import extensions_of
from emulator.compute.vm_force_delete import FORCED_TIMING, PLAIN_TIMING, is_forced, parse_flag, refused_force
from emulator.compute.vm_instance_view import instance_view, status_only
from emulator.compute.vm_model import (
    SECRETS,
    VM_TYPE,
    check_immutable,
    default_os_profile,
    merge_update,
    new_host,
    os_type,
)
from emulator.compute.vm_nics import attach_nics, attached_nics, nic_delete_option, validate_nic_refs
from emulator.compute.vm_placement import check_disks_and_placement, placed_zones, with_flex_size
from emulator.network.network_interfaces import NetworkInterfacesBackend
from emulator.state import EmulatorState

__all__ = ["VM_TYPE", "VirtualMachinesBackend"]


class VirtualMachinesBackend:
    def __init__(self, state: EmulatorState, nics: NetworkInterfacesBackend, disks: DisksBackend) -> None:
        self.state = state
        self.nics = nics
        self.disks = disks

    def put(self, scope: Scope, name: str, request: dict[str, Any]) -> Outcome:
        scope, _, existing = prepare_put(self.state, scope, VM_TYPE, name)
        vm, op = self._write(scope, name, request, existing, "virtualMachines.put")
        return Outcome(200 if existing else 201, vm.body, op)

    def patch(self, scope: Scope, name: str, update: dict[str, Any]) -> Outcome:
        """`virtual_machines.begin_update`: the update merged into the stored model, then written as a PUT
        would be (a Failed VM may be updated; success makes it Succeeded)."""
        existing = get_existing(self.state, scope, VM_TYPE, name)
        ensure_idle(self.state, existing.id)
        scope = Scope(existing.subscription, existing.resource_group)
        vm, op = self._write(scope, name, merge_update(existing.body, update), existing, "virtualMachines.patch")
        return Outcome(200, vm.body, op)

    def get(self, scope: Scope, name: str, expand: str | None) -> dict[str, Any]:
        vm = get_existing(self.state, scope, VM_TYPE, name)
        extensions = {"resources": extensions_of(vm)} if vm.extra.get("extensions") else {}
        if wants(expand, USER_DATA):
            return {**with_user_data(vm), **extensions}
        if wants(expand, "instanceView"):
            return {**vm.body, "properties": {**vm.properties, "instanceView": instance_view(vm, self.state)},
                    **extensions}
        return {**vm.body, **extensions}

    def get_instance_view(self, scope: Scope, name: str) -> dict[str, Any]:
        return instance_view(get_existing(self.state, scope, VM_TYPE, name), self.state)

    def list(self, subscription: str, resource_group: str | None, location: str | None = None) -> list[dict]:
        vms = listed(self.state, VM_TYPE, subscription, resource_group)
        if location:
            vms = [v for v in vms if v.body.get("location", "").lower() == location.lower()]
        return [v.body for v in vms]

    def listed_for_statuses(self, subscription: str) -> builtins.list[Resource]:
        """The subscription's VMs as `statusOnly=true` lists them, each shown by `status_of`."""
        return listed(self.state, VM_TYPE, subscription, None)

    def status_of(self, vm: Resource) -> dict:
        """A VM's run-time status alone, nothing of its model."""
        return status_only(vm, self.state)

    def delete(self, scope: Scope, name: str, force_deletion: str | None = None) -> Outcome:
        """`force_deletion`: the query's `forceDeletion` as sent; a forced delete skips the guest's shutdown,
        so its operation is shorter (vm_force_delete.py); the cascades are the same."""
        vm = deletable(self.state, scope, VM_TYPE, name)
        if vm is None:
            return Outcome(204)
        was_failed = vm.properties.get("provisioningState") == "Failed"
        forced = is_forced(vm, parse_flag(force_deletion))
        if forced:
            refused_force(self.state, name)
        timing = FORCED_TIMING if forced else PLAIN_TIMING
        self.state.vm_deletions.append(VmDeletion(vm.id, force_deletion, forced,
                                                  duration(self.state.settings.latency_profile, timing)))
        vm.properties["provisioningState"] = "Deleting"
        self.state.store.changed(vm)

        def failed(error: errors.ArmError) -> None:
            self._mark_failed(vm, error)

        return Outcome(202, None, start_operation(self.state, vm, "virtualMachines.delete",
                                                  lambda: self.delete_with_cascades(vm, was_failed), failed,
                                                  timing=timing))

    async def delete_with_cascades(self, vm: Resource, was_failed: bool = False) -> None:
        """Remove the VM's NICs/disks by deleteOption (Detach: they stay, detached), then the VM: ARM lists the VM
        (provisioningState Deleting) until its delete operation has ended, cascades included.

        NICs of a Failed VM are detached and reserved (180 s) instead: Azure refuses to delete them
        until the reservation expires, which is exactly the case azmc must clean up later.
        """
        store = self.state.store
        profile = self.state.settings.latency_profile
        nics = [(nic, nic_delete_option(vm, nic)) for nic in attached_nics(self.state, vm)]
        storage = vm.properties.get("storageProfile", {})
        attached = [d for d in storage.get("dataDisks", []) if not d.get("toBeDetached")]  # not those leaving
        disk_entries = ([storage["osDisk"]] if storage.get("osDisk") else []) + attached
        for nic, option in nics:
            self.nics.detach(nic)
            if was_failed:
                self.nics.reserve(nic, vm.id)
            elif option == "Delete":
                await self.state.clock.sleep_scaled(duration(profile, "networkInterfaces.delete"))
                store.delete(nic.id)
        for entry in disk_entries:
            disk = store.get((entry.get("managedDisk") or {}).get("id", ""))
            if disk is None:
                continue
            self.disks.detach(disk)
            if entry.get("deleteOption") == "Delete":
                await self.state.clock.sleep_scaled(duration(profile, "disks.delete"))
                store.delete(disk.id)
        store.delete(vm.id)

    # ---- the write PUT and PATCH share

    def _write(self, scope: Scope, name: str, request: dict[str, Any], existing: Resource | None,
               op_name: str) -> tuple[Resource, Any]:
        rid = scope.resource_id(VM_TYPE, name)
        location = require_location(request)
        if existing is None:  # what Azure picks for a new VM: a size (flexible sizing), a zone (automatic placement)
            request = with_flex_size(request)
            picked = placed_zones(request)
            if picked:
                request = {**request, "zones": picked}
        elif existing.body.get("placement") and not request.get("zones"):
            request = {**request, "zones": existing.body.get("zones")}  # the zone placement picked stays
        props = copy.deepcopy(request.get("properties") or {})
        if existing is not None:
            check_immutable(existing.properties, props)
        vm_features.check(self.state, rid, {**request, "location": location}, existing)
        bootstrap = take_bootstrap(props, existing)
        nic_refs = validate_nic_refs(self.state, self.nics, rid, props)
        storage = props.get("storageProfile") or {}
        detaching = detaching_entries(existing, storage)
        planned_os, planned_data = plan_disks(self.state, scope, rid, name, storage)
        if existing is None and planned_os is None:
            if props.get("instanceProfile"):  # size, image and disks from a gallery's instance profile
                raise errors.invalid("properties.instanceProfile is not supported by the azmc emulator; give the "
                                     "VM's size, image and disks in the request.", target="instanceProfile")
            raise errors.invalid("Required parameter 'osDisk' is missing (null).", target="osDisk")
        check_disks_and_placement(self.state.catalog, {**request, "properties": props})
        self.state.reservations.check_vm({**request, "properties": props})
        allocation = request_for(rid, scope.subscription, {**request, "location": location})
        # Quota and SkuNotAvailable refuse here (409, nothing changed); an allocation failure comes back to
        # end the operation Failed, as Azure reports it.
        allocation_error = check_allocation(self.state, allocation) if write_allocates(existing, allocation) else None

        # Validation passed: from here on the request changes state.
        kind = os_type(props)
        zones = request.get("zones")
        if planned_os is not None:
            storage["osDisk"] = realize(self.disks, scope, rid, location, planned_os, kind, zones)
        elif existing is not None:
            storage["osDisk"] = existing.properties["storageProfile"]["osDisk"]
        storage["dataDisks"] = [realize(self.disks, scope, rid, location, d, None, zones) for d in planned_data]
        if existing is not None:
            self._detach_dropped(existing, nic_refs, storage)
            storage["dataDisks"] += detaching  # listed, marked, until the update ends
        attach_nics(self.state, self.nics, rid, nic_refs)

        body = base_body(rid, name, VM_TYPE, request, location)
        if request.get("placement") is not None:
            body["placement"] = request["placement"]
        vm_features.fill(self.state, body, existing)
        props["storageProfile"] = storage
        props.setdefault("networkProfile", {})["networkInterfaces"] = nic_refs
        for secret in SECRETS:
            (props.get("osProfile") or {}).pop(secret, None)
        if props.get("osProfile"):
            default_os_profile(props["osProfile"], kind)
        props.setdefault("securityProfile", {"securityType": "Standard"})
        old = existing.properties if existing else {}
        props["vmId"] = old.get("vmId") or str(uuid.uuid4())
        props["timeCreated"] = old.get("timeCreated") or self.state.clock.utc_iso()
        props["provisioningState"] = "Updating" if existing else "Creating"
        body["properties"] = props
        version = int(existing.extra.get("version", 0)) + 1 if existing else 1
        body["etag"] = f'"{version}"'
        vm = Resource(VM_TYPE, scope.subscription, scope.resource_group, body,
                      extra=dict(existing.extra) if existing else {"power": "starting", "host": new_host()})
        vm.extra.pop("error", None)
        vm.extra["version"] = version
        store_bootstrap(vm, bootstrap)
        self.state.store.put(vm)
        on_failure = self._create_failed if op_name.endswith(".put") else self._mark_failed

        async def work() -> None:
            if allocation_error is not None:
                raise allocation_error
            await self._succeeded(vm)

        async def finish_late() -> None:
            # Only the VM this write made, still Failed: not one deleted, written again or being deleted since.
            if self.state.store.get(vm.id) is vm and vm.properties.get("provisioningState") == "Failed":
                await work()

        op = start_operation(self.state, vm, op_name, work, lambda error: on_failure(vm, error), late=finish_late)
        return vm, op

    async def _succeeded(self, vm: Resource) -> None:
        """A VM that never ran (new, or Failed at creation) now runs; an update keeps its power state."""
        vm.properties["provisioningState"] = "Succeeded"
        drop_detached(vm.properties)
        if vm.extra.get("power") in (None, "starting"):
            vm.extra["power"] = "running"
            start_boot(vm, self.state)
        vm.extra.pop("failed", None)
        vm.extra.pop("error", None)  # a write that finished late: its operation's error is not the VM's any more
        self.state.store.changed(vm)
        for nic in attached_nics(self.state, vm):
            self.nics.release(nic, vm.id)

    def _create_failed(self, vm: Resource, error: errors.ArmError) -> None:
        """Azure keeps the VM (Failed) and reserves its NICs for 180 s."""
        self._mark_failed(vm, error)
        if vm.extra.get("power") == "starting":
            vm.extra["power"] = None
        for nic in attached_nics(self.state, vm):
            self.nics.reserve(nic, vm.id)

    def _mark_failed(self, vm: Resource, error: errors.ArmError) -> None:
        vm.properties["provisioningState"] = "Failed"
        vm.extra["failed"] = True
        vm.extra["error"] = error
        self.state.store.changed(vm)

    def _detach_dropped(self, vm: Resource, nic_refs: builtins.list[dict[str, Any]], storage: dict[str, Any]) -> None:
        keep_nics = {arm_ids.key(r["id"]) for r in nic_refs}
        for nic in attached_nics(self.state, vm):
            if arm_ids.key(nic.id) not in keep_nics:
                self.nics.detach(nic)
        keep_disks = {arm_ids.key(d["managedDisk"]["id"]) for d in storage["dataDisks"]}
        for entry in vm.properties.get("storageProfile", {}).get("dataDisks", []):
            if entry.get("toBeDetached"):  # detached already, by the write that marked it
                continue
            disk = self.state.store.get(entry.get("managedDisk", {}).get("id", ""))
            if disk is not None and arm_ids.key(disk.id) not in keep_disks:
                self.disks.detach(disk)
