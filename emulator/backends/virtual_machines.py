"""Virtual machines: PUT references NICs and creates disks; a failed create leaves a Failed VM."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from emulator import arm_ids, errors
from emulator.arm_ids import Scope
from emulator.backends.common import (
    base_body,
    get_existing,
    prepare_put,
    require_group,
    require_location,
    start_operation,
)
from emulator.backends.disks import DisksBackend
from emulator.backends.network_interfaces import NetworkInterfacesBackend
from emulator.backends.outcome import Outcome
from emulator.backends.vm_disks import plan_disks, realize
from emulator.backends.vm_instance_view import instance_view
from emulator.state import EmulatorState
from emulator.store import Resource

VM_TYPE = "Microsoft.Compute/virtualMachines"
# Never echoed by Azure.
_SECRETS = ("adminPassword", "customData")


class VirtualMachinesBackend:
    def __init__(self, state: EmulatorState, nics: NetworkInterfacesBackend, disks: DisksBackend) -> None:
        self.state = state
        self.nics = nics
        self.disks = disks

    def put(self, scope: Scope, name: str, request: dict[str, Any]) -> Outcome:
        scope, rid, existing = prepare_put(self.state, scope, VM_TYPE, name)
        location = require_location(request)
        props = copy.deepcopy(request.get("properties") or {})
        nic_refs = self._validate_nics(rid, props)
        storage = props.get("storageProfile") or {}
        planned_os, planned_data = plan_disks(self.state, scope, rid, name, storage)
        if existing is None and planned_os is None:
            raise errors.invalid("Required parameter 'osDisk' is missing (null).", target="osDisk")

        # Validation passed: from here on the request changes state.
        os_type = self._os_type(props)
        zones = request.get("zones")
        if planned_os is not None:
            storage["osDisk"] = realize(self.disks, scope, rid, location, planned_os, os_type, zones)
        elif existing is not None:
            storage["osDisk"] = existing.properties["storageProfile"]["osDisk"]
        storage["dataDisks"] = [realize(self.disks, scope, rid, location, d, None, zones) for d in planned_data]
        if existing is not None:
            self._detach_dropped(existing, nic_refs, storage)
        for index, ref in enumerate(nic_refs):
            nic_props = ref.setdefault("properties", {})
            nic_props.setdefault("deleteOption", "Detach")
            nic = self.state.store.get(ref["id"])
            assert nic is not None
            ref["id"] = nic.id
            self.nics.attach(nic, rid, primary=bool(nic_props.get("primary", index == 0)))

        body = base_body(rid, name, VM_TYPE, request)
        body["location"] = location
        props["storageProfile"] = storage
        props.setdefault("networkProfile", {})["networkInterfaces"] = nic_refs
        for secret in _SECRETS:
            (props.get("osProfile") or {}).pop(secret, None)
        if props.get("osProfile"):
            _default_os_profile(props["osProfile"], os_type)
        props.setdefault("securityProfile", {"securityType": "Standard"})
        old = existing.properties if existing else {}
        props["vmId"] = old.get("vmId") or str(uuid.uuid4())
        props["timeCreated"] = old.get("timeCreated") or self.state.clock.utc_iso()
        props["provisioningState"] = "Updating" if existing else "Creating"
        body["properties"] = props
        version = int(existing.extra.get("version", 0)) + 1 if existing else 1
        body["etag"] = f'"{version}"'
        vm = Resource(VM_TYPE, scope.subscription, scope.resource_group, body,
                      extra=dict(existing.extra) if existing else {"power": "starting"})
        vm.extra.pop("error", None)
        vm.extra["version"] = version
        self.state.store.put(vm)
        op = start_operation(self.state, vm, "virtualMachines.put", lambda: self._created(vm),
                             lambda error: self._create_failed(vm, error))
        return Outcome(200 if existing else 201, vm.body, op)

    def get(self, scope: Scope, name: str, expand: str | None) -> dict[str, Any]:
        vm = get_existing(self.state, scope, VM_TYPE, name)
        if expand and expand.lower() == "instanceview":
            return {**vm.body, "properties": {**vm.properties, "instanceView": instance_view(vm, self.state)}}
        return vm.body

    def get_instance_view(self, scope: Scope, name: str) -> dict[str, Any]:
        return instance_view(get_existing(self.state, scope, VM_TYPE, name), self.state)

    def list(self, subscription: str, resource_group: str | None, location: str | None = None) -> list[dict]:
        if resource_group is not None:
            require_group(self.state, Scope(subscription, resource_group))
        vms = self.state.store.of_type(VM_TYPE, subscription, resource_group)
        if location:
            vms = [v for v in vms if v.body.get("location", "").lower() == location.lower()]
        return [v.body for v in vms]

    # ---- state transitions

    async def _created(self, vm: Resource) -> None:
        vm.properties["provisioningState"] = "Succeeded"
        vm.extra["power"] = "running"
        vm.extra.pop("failed", None)
        self.state.store.changed(vm)
        for nic in self.attached_nics(vm):
            self.nics.release(nic, vm.id)

    def _create_failed(self, vm: Resource, error: errors.ArmError) -> None:
        """Azure keeps the VM (Failed) and reserves its NICs for 180 s."""
        vm.properties["provisioningState"] = "Failed"
        vm.extra["failed"] = True
        vm.extra["error"] = error
        vm.extra["power"] = None
        self.state.store.changed(vm)
        for nic in self.attached_nics(vm):
            self.nics.reserve(nic, vm.id)

    # ---- helpers

    def attached_nics(self, vm: Resource) -> list[Resource]:
        refs = vm.properties.get("networkProfile", {}).get("networkInterfaces", [])
        found = [self.state.store.get(ref["id"]) for ref in refs]
        return [nic for nic in found if nic is not None]

    def _validate_nics(self, vm_id: str, props: dict[str, Any]) -> list[dict[str, Any]]:
        network = props.get("networkProfile") or {}
        refs: list[dict[str, Any]] = network.get("networkInterfaces") or []
        if network.get("networkInterfaceConfigurations"):
            raise errors.invalid(
                "networkProfile.networkInterfaceConfigurations is not supported by the azmc emulator; "
                "create the NIC first and reference it in networkProfile.networkInterfaces.",
                target="networkInterfaceConfigurations",
            )
        if not refs:
            raise errors.invalid("The virtual machine must have at least one network interface.",
                                 target="networkProfile.networkInterfaces")
        for ref in refs:
            nic = self.state.store.get(ref.get("id", ""))
            if nic is None:
                raise errors.invalid(
                    f"Resource {ref.get('id')} referenced by resource {vm_id} was not found. Please make sure "
                    "that the referenced resource exists, and that both resources are in the same region.",
                    code="InvalidResourceReference",
                )
            self.nics.check_not_reserved(nic, for_vm=vm_id)
            owner = (nic.properties.get("virtualMachine") or {}).get("id")
            if owner and arm_ids.key(owner) != arm_ids.key(vm_id):
                raise errors.ArmError(
                    400, "NicInUse",
                    f"Network Interface {nic.id} is used by existing resource {owner}. A network interface "
                    "can be attached to one virtual machine only.",
                )
        return refs

    def _detach_dropped(self, vm: Resource, nic_refs: list[dict[str, Any]], storage: dict[str, Any]) -> None:
        keep_nics = {arm_ids.key(r["id"]) for r in nic_refs}
        for nic in self.attached_nics(vm):
            if arm_ids.key(nic.id) not in keep_nics:
                self.nics.detach(nic)
        keep_disks = {arm_ids.key(d["managedDisk"]["id"]) for d in storage["dataDisks"]}
        for entry in vm.properties.get("storageProfile", {}).get("dataDisks", []):
            disk = self.state.store.get(entry.get("managedDisk", {}).get("id", ""))
            if disk is not None and arm_ids.key(disk.id) not in keep_disks:
                self.disks.detach(disk)

    @staticmethod
    def _os_type(props: dict[str, Any]) -> str:
        os_disk = (props.get("storageProfile") or {}).get("osDisk") or {}
        if os_disk.get("osType"):
            return str(os_disk["osType"])
        profile = props.get("osProfile") or {}
        publisher = ((props.get("storageProfile") or {}).get("imageReference") or {}).get("publisher", "")
        windows = "windowsConfiguration" in profile or "windows" in str(publisher).lower()
        return "Windows" if windows else "Linux"


def _default_os_profile(profile: dict[str, Any], os_type: str) -> None:
    """Defaults Azure fills into the osProfile it echoes."""
    profile.setdefault("secrets", [])
    profile.setdefault("allowExtensionOperations", True)
    profile.setdefault("requireGuestProvisionSignal", True)
    if os_type == "Windows":
        config = profile.setdefault("windowsConfiguration", {})
        config.setdefault("provisionVMAgent", True)
        config.setdefault("enableAutomaticUpdates", True)
    else:
        config = profile.setdefault("linuxConfiguration", {})
        config.setdefault("disablePasswordAuthentication", False)
        config.setdefault("provisionVMAgent", True)
