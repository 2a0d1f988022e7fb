"""A VM's model (its body): what Azure fills in, what an update may not change, how a PATCH merges."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from emulator.arm import errors
from emulator.compute.vm_images import is_windows

VM_TYPE = "Microsoft.Compute/virtualMachines"

# Never echoed by Azure.
SECRETS = ("adminPassword", "customData")
# Computed by Azure; a PATCH or PUT never sets them.
_READ_ONLY = ("vmId", "provisioningState", "timeCreated", "instanceView")
# Fixed at creation: Azure answers 409 PropertyChangeNotAllowed to a change.
_IMMUTABLE = (("storageProfile", "imageReference"), ("osProfile", "computerName"), ("osProfile", "adminUsername"))


def new_host() -> str:
    """An id for the physical host a VM runs on (emulator bookkeeping: Azure does not show it)."""
    return f"host-{uuid.uuid4().hex[:12]}"


def os_type(props: dict[str, Any]) -> str:
    os_disk = (props.get("storageProfile") or {}).get("osDisk") or {}
    if os_disk.get("osType"):
        return str(os_disk["osType"])
    profile = props.get("osProfile") or {}
    image = (props.get("storageProfile") or {}).get("imageReference") or {}
    windows = "windowsConfiguration" in profile or is_windows(image)
    return "Windows" if windows else "Linux"


def default_os_profile(profile: dict[str, Any], kind: str) -> None:
    """Defaults Azure fills into the osProfile it echoes."""
    profile.setdefault("secrets", [])
    profile.setdefault("allowExtensionOperations", True)
    profile.setdefault("requireGuestProvisionSignal", True)
    if kind == "Windows":
        config = profile.setdefault("windowsConfiguration", {})
        config.setdefault("provisionVMAgent", True)
        config.setdefault("enableAutomaticUpdates", True)
    else:
        config = profile.setdefault("linuxConfiguration", {})
        config.setdefault("disablePasswordAuthentication", False)
        config.setdefault("provisionVMAgent", True)


def check_immutable(old: dict[str, Any], new: dict[str, Any]) -> None:
    """An update may not change the image, the computer name or the admin user."""
    for section, field in _IMMUTABLE:
        before = (old.get(section) or {}).get(field)
        after = (new.get(section) or {}).get(field)
        if before is None or after is None:
            continue
        if isinstance(before, dict) and isinstance(after, dict):
            changed = any(str(before.get(k, "")).lower() != str(v).lower() for k, v in after.items())
        else:
            changed = str(before).lower() != str(after).lower()
        if changed:
            raise errors.ArmError(409, "PropertyChangeNotAllowed",
                                  f"Changing property '{field}' is not allowed.", target=field)


def merge_update(body: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """The PUT body a VirtualMachineUpdate (PATCH) amounts to.

    Objects merge field by field, `null` removes a field, lists are replaced whole (ARM's merge
    patch), except that a data disk entry is merged into the stored entry with the same LUN, so
    `{"lun": 0, "createOption": "Attach", "deleteOption": "Detach"}` changes only what it names.
    """
    merged = {k: copy.deepcopy(v) for k, v in body.items() if k not in ("id", "name", "type", "etag")}
    if update.get("tags") is not None:
        merged["tags"] = copy.deepcopy(update["tags"])
    if update.get("identity") is not None:  # a user-assigned identity set to null is removed
        merged["identity"] = _merge(copy.deepcopy(body.get("identity") or {}), update["identity"])
    props = copy.deepcopy(update.get("properties") or {})
    for read_only in _READ_ONLY:
        props.pop(read_only, None)
    stored_disks = ((body.get("properties") or {}).get("storageProfile") or {}).get("dataDisks") or []
    wanted_disks = (props.get("storageProfile") or {}).get("dataDisks")
    merged["properties"] = _merge(merged.get("properties") or {}, props)
    if isinstance(wanted_disks, list):
        by_lun = {entry.get("lun"): entry for entry in stored_disks}
        merged["properties"]["storageProfile"]["dataDisks"] = [
            _merge(copy.deepcopy(by_lun[entry.get("lun")]), entry)
            if isinstance(entry, dict) and entry.get("lun") in by_lun else entry
            for entry in wanted_disks
        ]
    return merged


def _merge(target: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        elif isinstance(value, dict) and isinstance(target.get(key), dict):
            target[key] = _merge(target[key], value)
        else:
            target[key] = copy.deepcopy(value)
    return target
