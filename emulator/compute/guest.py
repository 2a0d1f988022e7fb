"""A VM's guest as the emulator models it: a boot of `boot_seconds` after every (re)start, and the VM agent
status Azure reports for it (booting, unresponsive, Ready, or none when the VM is not running)."""

from __future__ import annotations

from typing import Any

from emulator.arm.store import Resource
from emulator.state import EmulatorState

# Power states in which Azure reports a VM agent; a stopped or deallocated VM has no `vmAgent` at all.
_AGENT_POWER = ("running", "starting")
AGENT_VERSION = "2.7.41491.1102"
_BOOTING = "VM status blob is found but not yet populated."
_UNRESPONSIVE = "VM Agent is unresponsive."
_READY = "GuestAgent is running and accepting new configurations."


def start_boot(vm: Resource, state: EmulatorState) -> None:
    """The guest boots from now for the current `boot_seconds` (a later change of the setting does not
    move a boot that has begun)."""
    vm.extra["boot"] = (state.clock.now(), state.settings.boot_seconds)


def booted(vm: Resource, state: EmulatorState) -> bool:
    """Running and past its boot. The time scale is read now, not when the boot began, so a test can end
    every boot by setting `time_scale` 0 instead of waiting."""
    boot = vm.extra.get("boot")
    if vm.extra.get("power") != "running" or boot is None:
        return False
    began, seconds = boot
    return state.clock.now() - began >= state.clock.scaled(seconds)


def agent_state(vm: Resource, state: EmulatorState) -> str | None:
    """None (no agent reported), "booting", "unresponsive" or "ready"."""
    if vm.extra.get("power") not in _AGENT_POWER:
        return None
    kinds = {fault.fault for fault in state.guest_faults.of(vm)}
    if kinds & {"hang", "kernel_panic", "host_failure"} or state.scheduled_events.in_progress(vm) is not None:
        return "unresponsive"
    if "boot_failure" in kinds or not booted(vm, state):
        return "booting"
    return "ready"


def vm_agent(vm: Resource, state: EmulatorState) -> dict[str, Any] | None:
    """`instanceView.vmAgent` as Azure reports it, or None when Azure omits it."""
    agent = agent_state(vm, state)
    if agent is None:
        return None
    now = state.clock.utc_iso()
    if agent == "ready":
        status = {"code": "ProvisioningState/succeeded", "level": "Info", "displayStatus": "Ready",
                  "message": _READY, "time": now}
    else:
        status = {"code": "ProvisioningState/Unavailable", "level": "Warning", "displayStatus": "Not Ready",
                  "message": _UNRESPONSIVE if agent == "unresponsive" else _BOOTING, "time": now}
    return {"vmAgentVersion": AGENT_VERSION, "statuses": [status], "extensionHandlers": []}


def vm_at(state: EmulatorState, private_ip: str) -> Resource | None:
    """The VM holding a NIC with that private IP (the first, should two subnets hand out the same one)."""
    for nic in state.store.of_type("Microsoft.Network/networkInterfaces"):
        addresses = {(c.get("properties") or {}).get("privateIPAddress")
                     for c in nic.properties.get("ipConfigurations", [])}
        owner = (nic.properties.get("virtualMachine") or {}).get("id")
        if private_ip in addresses and owner:
            vm = state.store.get(owner)
            if vm is not None:
                return vm
    return None


def probe(state: EmulatorState, private_ip: str) -> str | None:
    """Why a probe of the guest at `private_ip` fails, or None when the guest answers."""
    vm = vm_at(state, private_ip)
    if vm is None:
        return f"no VM holds a NIC with private IP {private_ip}"
    power = vm.extra.get("power")
    if power != "running":
        return f"VM {vm.name} is not running (power state {power or 'none'})"
    faults = sorted({fault.fault for fault in state.guest_faults.of(vm)})
    if faults:
        return f"VM {vm.name}'s guest has a fault: {', '.join(faults)}"
    if not booted(vm, state):
        return f"VM {vm.name} is still booting"
    return None
