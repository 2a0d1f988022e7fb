"""A VM's bootstrap data as Azure keeps it: customData and userData.

customData (osProfile) is written once at creation and never returned by any read; a PUT that changes it
is refused. userData (properties) is returned only by a GET with `$expand=userData` and may change.
Both must be base64 of at most 65,535 bytes. The emulator keeps both in the resource's `extra`, outside
the body every read and list serves, so no read path can leak them by accident.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Any

from emulator.arm import errors
from emulator.arm.store import Resource

# Azure: "The maximum length of the binary array is 65535 bytes" (customData); userData "can't exceed 64 KB".
MAX_DECODED_BYTES = 65535
_MAX_BASE64_CHARS = 87380
CUSTOM_DATA = "customData"
USER_DATA = "userData"


def _check_base64(value: Any, field: str, label: str) -> None:
    problem = f"{label} must be in Base64 encoding and with a maximum length of {_MAX_BASE64_CHARS} characters."
    if not isinstance(value, str) or len(value) > _MAX_BASE64_CHARS:
        raise errors.invalid(problem, target=field)
    try:
        decoded = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise errors.invalid(problem, target=field) from None
    if len(decoded) > MAX_DECODED_BYTES:
        raise errors.invalid(problem, target=field)


def take_bootstrap(props: dict[str, Any], existing: Resource | None) -> dict[str, str]:
    """Validate and remove customData/userData from a PUT's properties; what the VM keeps afterwards.

    Raises before anything changes: bad base64, too large, or a customData that differs from the one the
    VM was created with (Azure: 409 PropertyChangeNotAllowed)."""
    kept = {key: existing.extra[key] for key in (CUSTOM_DATA, USER_DATA) if existing and key in existing.extra}
    profile = props.get("osProfile") or {}
    custom = profile.pop(CUSTOM_DATA, None)
    user = props.pop(USER_DATA, None)
    if custom is not None:
        _check_base64(custom, CUSTOM_DATA, "Custom data in OSProfile")
        if existing is not None and kept.get(CUSTOM_DATA) != custom:
            raise errors.ArmError(409, "PropertyChangeNotAllowed",
                                  f"Changing property '{CUSTOM_DATA}' is not allowed.", target=CUSTOM_DATA)
        kept[CUSTOM_DATA] = custom
    if user is not None:
        _check_base64(user, USER_DATA, "User data")
        kept[USER_DATA] = user
    return kept


def store_bootstrap(vm: Resource, kept: dict[str, str]) -> None:
    for key in (CUSTOM_DATA, USER_DATA):
        vm.extra.pop(key, None)
    vm.extra.update(kept)


def with_user_data(vm: Resource) -> dict[str, Any]:
    """The body a GET with `$expand=userData` answers."""
    if USER_DATA not in vm.extra:
        return vm.body
    return {**vm.body, "properties": {**vm.properties, USER_DATA: vm.extra[USER_DATA]}}


def wants(expand: str | None, what: str) -> bool:
    if not expand:
        return False
    return what.lower() in (part.strip().lower() for part in expand.split(","))


def bootstrap_digests(vm: Resource) -> dict[str, str]:
    """What the control API shows of a VM's bootstrap data: SHA-256 of the decoded bytes, never the data."""
    return {f"{key}Sha256": hashlib.sha256(base64.b64decode(vm.extra[key])).hexdigest()
            for key in (CUSTOM_DATA, USER_DATA) if key in vm.extra}
