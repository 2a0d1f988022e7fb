"""The VM instance view: provisioning and power state as Azure's status codes, and the VM agent."""

from __future__ import annotations

from typing import Any

from emulator.guest import vm_agent
from emulator.power_text import POWER_TEXT
from emulator.state import EmulatorState
from emulator.store import Resource


def _statuses(vm: Resource, state: EmulatorState) -> list[dict[str, Any]]:
    """The instance view's `statuses`: the provisioning state (with its error when Failed) and the power state."""
    provisioning = vm.properties.get("provisioningState", "Succeeded")
    now = state.clock.utc_iso()
    statuses: list[dict[str, Any]] = []
    error = vm.extra.get("error")
    if provisioning == "Failed" and error is not None:
        statuses.append({"code": f"ProvisioningState/failed/{error.code}", "level": "Error",
                         "displayStatus": "Provisioning failed", "message": error.message, "time": now})
    elif provisioning == "Succeeded":
        statuses.append({"code": "ProvisioningState/succeeded", "level": "Info",
                         "displayStatus": "Provisioning succeeded", "time": now})
    else:
        statuses.append({"code": f"ProvisioningState/{provisioning.lower()}", "level": "Info",
                         "displayStatus": provisioning})
    power = vm.extra.get("power")
    if power:
        statuses.append({"code": f"PowerState/{power}", "level": "Info", "displayStatus": POWER_TEXT[power]})
    return statuses


def status_only(vm: Resource, state: EmulatorState) -> dict[str, Any]:
    """A VM as the subscription's list with `statusOnly=true` shows it: its identity, provisioning state and
    instance view statuses, none of its model (no tags, an empty hardware profile), as Microsoft's own sample of
    that call prints it; no VM agent (Azure's list leaves the instance view's other blocks out)."""
    return {"id": vm.body["id"], "name": vm.name, "type": vm.body.get("type", "Microsoft.Compute/virtualMachines"),
            "location": vm.body.get("location", ""),
            "properties": {"vmId": vm.properties.get("vmId", ""), "hardwareProfile": {},
                           "provisioningState": vm.properties.get("provisioningState", "Succeeded"),
                           "instanceView": {"statuses": _statuses(vm, state)}}}


def instance_view(vm: Resource, state: EmulatorState) -> dict[str, Any]:
    now = state.clock.utc_iso()
    statuses = _statuses(vm, state)
    storage = vm.properties.get("storageProfile", {})
    disks = [storage.get("osDisk")] if storage.get("osDisk") else []
    disks += storage.get("dataDisks", [])
    profile = vm.properties.get("osProfile") or {}
    view: dict[str, Any] = {
        "platformUpdateDomain": 0,
        "platformFaultDomain": 0,
        "isVMInStandbyPool": False,
        "computerName": profile.get("computerName", vm.name),
        "osName": "Windows" if "windowsConfiguration" in profile else "ubuntu",
        "osVersion": "",
        "hyperVGeneration": "V2",
        "disks": [
            {"name": d["name"], "statuses": [{"code": "ProvisioningState/succeeded", "level": "Info",
                                              "displayStatus": "Provisioning succeeded", "time": now}]}
            for d in disks
        ],
        "bootDiagnostics": {},
        "statuses": statuses,
    }
    agent = vm_agent(vm, state)
    if agent is not None:  # Azure omits it for a VM that is not running or starting
        view["vmAgent"] = agent
    return view
