"""VM delete (with deleteOption cascades) and power operations (powerOff, deallocate, start)."""

from __future__ import annotations

from emulator import errors
from emulator.arm_ids import Scope
from emulator.backends.common import ensure_idle, get_existing, require_group, start_operation
from emulator.backends.outcome import Outcome
from emulator.backends.virtual_machines import VM_TYPE, VirtualMachinesBackend
from emulator.latency import duration
from emulator.state import EmulatorState
from emulator.store import Resource

# verb -> (transitional power state, final power state)
_POWER_VERBS = {
    "powerOff": ("stopping", "stopped"),
    "deallocate": ("deallocating", "deallocated"),
    "start": ("starting", "running"),
}


class VmLifecycleBackend:
    def __init__(self, state: EmulatorState, vms: VirtualMachinesBackend) -> None:
        self.state = state
        self.vms = vms

    def delete(self, scope: Scope, name: str) -> Outcome:
        """`forceDeletion` needs nothing extra here: the emulator has no guest to shut down."""
        scope = require_group(self.state, scope)
        vm = self.state.store.get(scope.resource_id(VM_TYPE, name))
        if vm is None:
            return Outcome(204)
        ensure_idle(self.state, vm.id)
        was_failed = vm.properties.get("provisioningState") == "Failed"
        vm.properties["provisioningState"] = "Deleting"
        self.state.store.changed(vm)

        async def work() -> None:
            await self._delete_with_cascades(vm, was_failed)

        def failed(error: errors.ArmError) -> None:
            vm.properties["provisioningState"] = "Failed"
            vm.extra["failed"] = True
            vm.extra["error"] = error
            self.state.store.changed(vm)

        op = start_operation(self.state, vm, "virtualMachines.delete", work, failed)
        return Outcome(202, None, op)

    async def _delete_with_cascades(self, vm: Resource, was_failed: bool) -> None:
        """Remove the VM, then its NICs/disks by deleteOption; the operation ends after all of them.

        NICs of a Failed VM are detached and reserved (180 s) instead: Azure refuses to delete them
        until the reservation expires, which is exactly the case azmc must clean up later.
        """
        store = self.state.store
        profile = self.state.settings.latency_profile
        nics = self.vms.attached_nics(vm)
        refs = {ref["id"].lower(): ref for ref in vm.properties["networkProfile"]["networkInterfaces"]}
        storage = vm.properties.get("storageProfile", {})
        disk_entries = ([storage["osDisk"]] if storage.get("osDisk") else []) + storage.get("dataDisks", [])
        store.delete(vm.id)
        for nic in nics:
            option = (refs.get(nic.id.lower(), {}).get("properties") or {}).get("deleteOption", "Detach")
            self.vms.nics.detach(nic)
            if was_failed:
                self.vms.nics.reserve(nic, vm.id)
            elif option == "Delete":
                await self.state.clock.sleep_scaled(duration(profile, "networkInterfaces.delete"))
                store.delete(nic.id)
        for entry in disk_entries:
            disk = store.get((entry.get("managedDisk") or {}).get("id", ""))
            if disk is None:
                continue
            self.vms.disks.detach(disk)
            if entry.get("deleteOption") == "Delete":
                await self.state.clock.sleep_scaled(duration(profile, "disks.delete"))
                store.delete(disk.id)

    def power(self, scope: Scope, name: str, verb: str) -> Outcome:
        vm = get_existing(self.state, scope, VM_TYPE, name)
        ensure_idle(self.state, vm.id)
        transitional, final = _POWER_VERBS[verb]
        before = vm.extra.get("power")
        vm.extra["power"] = transitional
        self.state.store.changed(vm)

        async def work() -> None:
            vm.extra["power"] = final
            self.state.store.changed(vm)

        def failed(_: errors.ArmError) -> None:
            vm.extra["power"] = before
            self.state.store.changed(vm)

        op = start_operation(self.state, vm, f"virtualMachines.{verb}", work, failed)
        return Outcome(202, None, op)
