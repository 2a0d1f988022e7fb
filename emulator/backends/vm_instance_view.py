"""The VM instance view: provisioning and power state as Azure's status codes, and the VM agent."""

from __future__ import annotations

from typing import Any

from emulator.guest import vm_agent
from emulator.power_text import POWER_TEXT
from emulator.state import EmulatorState
from emulator.store import Resource


def instance_view(vm: Resource, state: EmulatorState) -> dict[str, Any]:
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
