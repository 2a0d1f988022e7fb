"""How a VM operation (power, restart, redeploy) moves a VM's state: Updating while it runs, Succeeded with the
earlier error cleared when it ends well, Failed with the error in its instance view when it does not."""

from __future__ import annotations

from emulator.arm import errors
from emulator.arm.store import Resource
from emulator.compute.guest import start_boot
from emulator.state import EmulatorState


def begin(vm: Resource, state: EmulatorState, power: str) -> None:
    vm.extra["power"] = power
    vm.properties["provisioningState"] = "Updating"
    state.store.changed(vm)


def succeeded(vm: Resource, state: EmulatorState, power: str, *, boots: bool) -> None:
    """`boots`: the guest comes up anew (start, restart, redeploy): its agent is Not Ready for a while."""
    vm.extra["power"] = power
    if boots:
        start_boot(vm, state)
    vm.properties["provisioningState"] = "Succeeded"
    vm.extra.pop("error", None)
    vm.extra.pop("failed", None)
    state.store.changed(vm)


def left_failed(vm: Resource, state: EmulatorState, power: str | None, error: errors.ArmError) -> None:
    vm.extra["power"] = power
    vm.properties["provisioningState"] = "Failed"
    vm.extra["error"] = error
    state.store.changed(vm)
