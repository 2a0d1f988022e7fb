"""The VM instance view: provisioning and power state as Azure's status codes, the VM agent and what it reports
(the guest's OS, its patch status), and the boot diagnostics blobs."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from emulator.arm.store import Resource
from emulator.compute.guest import vm_agent
from emulator.compute.power_text import POWER_TEXT
from emulator.compute.scheduled_events import ScheduledEvent
from emulator.compute.vm_extensions import handlers, instance_views
from emulator.compute.vm_images import guest_os
from emulator.compute.vm_model import os_type
from emulator.state import EmulatorState


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
    windows = os_type(vm.properties) == "Windows"
    os_name, os_version = guest_os(storage.get("imageReference") or {}, windows)
    view: dict[str, Any] = {
        "platformUpdateDomain": 0,
        "platformFaultDomain": 0,
        "isVMInStandbyPool": False,
        "computerName": profile.get("computerName", vm.name),
        "osName": os_name,
        "osVersion": os_version,
        "hyperVGeneration": "V2",
        "disks": [
            {"name": d["name"], "statuses": [{"code": "ProvisioningState/succeeded", "level": "Info",
                                              "displayStatus": "Provisioning succeeded", "time": now}]}
            for d in disks
        ],
        "bootDiagnostics": boot_diagnostics(vm),
        "statuses": statuses,
    }
    agent = vm_agent(vm, state)
    if agent is not None:  # Azure omits it for a VM that is not running or starting
        view["vmAgent"] = {**agent, "extensionHandlers": handlers(vm)}
        view["patchStatus"] = patch_status(vm, windows, now)
    if vm.extra.get("extensions"):
        view["extensions"] = instance_views(vm)
    redeploy = state.scheduled_events.pending(vm, "Redeploy")
    if redeploy is not None:
        view["maintenanceRedeployStatus"] = maintenance_redeploy_status(redeploy)
    return view


def maintenance_redeploy_status(event: ScheduledEvent) -> dict[str, Any]:
    """A pending Redeploy as the instance view's `maintenanceRedeployStatus` (the compute SDK's
    MaintenanceRedeployStatus): the owner may take the maintenance (customer-initiated) in its self-service window
    (`preMaintenanceWindow*`: from the event's creation to its deadline unless the event names one), Azure does it
    in its maintenance window from the deadline; `isCustomerInitiatedMaintenanceAllowed` says whether it is open
    now."""
    deadline = parsedate_to_datetime(event.not_before).isoformat().replace("+00:00", "Z")
    start, end = event.self_service[0] or event.created, event.self_service[1] or deadline
    now = datetime.now(UTC)
    open_now = datetime.fromisoformat(start) <= now <= datetime.fromisoformat(end)
    return {"isCustomerInitiatedMaintenanceAllowed": open_now, "preMaintenanceWindowStartTime": start,
            "preMaintenanceWindowEndTime": end, "maintenanceWindowStartTime": deadline,
            "maintenanceWindowEndTime": deadline, "lastOperationResultCode": "None"}


def boot_diagnostics(vm: Resource) -> dict[str, Any]:
    """The blobs of a VM whose boot diagnostics write to a storage account, named as Azure names them. With
    managed storage (no `storageUri`) Azure sets no URI here (they come from `retrieveBootDiagnosticsData`)."""
    settings = (vm.properties.get("diagnosticsProfile") or {}).get("bootDiagnostics") or {}
    account = settings.get("storageUri")
    if not settings.get("enabled") or not account:
        return {}
    vm_id = vm.properties.get("vmId", "")
    folder = f"{account.rstrip('/')}/bootdiagnostics-{re.sub('[^a-z0-9]', '', vm.name.lower())[:9]}-{vm_id}"
    return {"consoleScreenshotBlobUri": f"{folder}/{vm.name}.{vm_id}.screenshot.bmp",
            "serialConsoleLogBlobUri": f"{folder}/{vm.name}.{vm_id}.serialconsole.log"}


def patch_status(vm: Resource, windows: bool, now: str) -> dict[str, Any]:
    """What the agent reports of patching: the patch and assessment modes ready; no assessment or installation
    has run in the emulator, so both summaries say `Unknown` with no patches counted (Azure's own values come
    from the guest and nobody outside knows them)."""
    config = (vm.properties.get("osProfile") or {}).get("windowsConfiguration" if windows else "linuxConfiguration")
    settings = (config or {}).get("patchSettings") or {}
    created = vm.properties.get("timeCreated", now)
    statuses = [{"code": f"{kind}ModeConfigurationState/Ready", "level": "Info",
                 "displayStatus": f"Status_{kind}ModeConfigurationState_Ready", "time": created}
                for kind in ("Patch", "Assessment")]
    summary = {"status": "Unknown", "startTime": created, "lastModifiedTime": created, "error": None}
    return {
        "availablePatchSummary": {**summary, "assessmentActivityId": vm.properties.get("vmId", ""),
                                  "rebootPending": False, "criticalAndSecurityPatchCount": 0, "otherPatchCount": 0},
        "lastPatchInstallationSummary": {
            **summary, "installationActivityId": vm.properties.get("vmId", ""), "maintenanceWindowExceeded": False,
            "notSelectedPatchCount": 0, "excludedPatchCount": 0, "pendingPatchCount": 0, "installedPatchCount": 0,
            "failedPatchCount": 0},
        "configurationStatuses": statuses if settings.get("patchMode") != "Manual" else statuses[1:],
    }
