"""Resource name rules per type ("Naming rules and restrictions for Azure resources") with Azure's errors."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from emulator.arm.errors import ArmError
from emulator.compute.vm_model import os_type

# Resource groups: letters and digits (.NET's Char.IsLetterOrDigit: these Unicode categories), '-', '_', '.', '(',
# ')'; not ending in '.'.
_GROUP_LETTERS = {"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"}
_GROUP_MARKS = set("-_.()")
# Network resources: word characters, '.', '-', '_'; begin with a word character, end with one or '_'.
_NETWORK_NAME = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$")
_NETWORK_MAX = {"networkInterfaces": 80, "publicIPAddresses": 80, "networkSecurityGroups": 80,
                "applicationSecurityGroups": 80, "loadBalancers": 80, "subnets": 80, "virtualNetworks": 64}
_NETWORK_MIN = {"virtualNetworks": 2}
_DISK_NAME = re.compile(r"^[A-Za-z0-9_-]{1,80}$")
# VM resource names: up to 64; not these characters, not starting with '_', not ending with '.' or '-'.
_VM_FORBIDDEN = set('\\/"[]:|<>+=;,?*@&')
# Host (computer) names.
_HOST_FORBIDDEN = set("`~!@#$%^&*()=+_[]{}\\|;:'\",<>/?")


def check_name(resource_type: str, name: str) -> None:
    """Raise Azure's error if `name` may not name a new resource of `resource_type`."""
    if resource_type == "resourceGroups":
        _check_group(name)
    elif resource_type in _NETWORK_MAX:
        longest, shortest = _NETWORK_MAX[resource_type], _NETWORK_MIN.get(resource_type, 1)
        if not (shortest <= len(name) <= longest and _NETWORK_NAME.match(name)):
            raise ArmError(400, "InvalidResourceName",
                           f"Resource name {name} is invalid. The name can be up to {longest} characters long. "
                           "It must begin with a word character, and it must end with a word character or with "
                           "'_'. The name may contain word characters or '.', '-', '_'.")
    elif resource_type == "disks":
        if not _DISK_NAME.match(name):
            raise _invalid_name(name, "Microsoft.Compute/disks", "1 to 80 letters, digits, '_' and '-'")
    elif resource_type == "virtualMachines":
        bad = (not 1 <= len(name) <= 64 or name.startswith("_") or name.endswith((".", "-"))
               or any(c in _VM_FORBIDDEN or _control_or_space(c) for c in name))
        if bad:
            raise _invalid_name(name, "Microsoft.Compute/virtualMachines",
                                "1 to 64 characters, none of \\/\"[]:|<>+=;,?*@& or spaces, not starting "
                                "with '_', not ending with '.' or '-'")


def check_computer_name(properties: dict[str, Any]) -> None:
    """`osProfile.computerName`: Linux up to 64, Windows up to 15 and not all digits (CRP's messages)."""
    name = (properties.get("osProfile") or {}).get("computerName")
    if not isinstance(name, str):
        return
    bad_chars = any(c in _HOST_FORBIDDEN or _control_or_space(c) for c in name)
    if os_type(properties) == "Windows":
        if not name or len(name) > 15 or name.isdigit() or "." in name or bad_chars or name.endswith("-"):
            raise ArmError(400, "InvalidParameter",
                           "Windows computer name cannot be more than 15 characters long, be entirely numeric, "
                           "or contain the following characters: ` ~ ! @ # $ % ^ & * ( ) = + _ [ ] { } \\ | ; : . "
                           "' \" , < > / ?.", target="computerName")
    elif not name or len(name) > 64 or bad_chars or name.endswith((".", "-")):
        raise ArmError(400, "InvalidParameter",
                       "Linux host name cannot exceed 64 characters in length or contain the following "
                       "characters: ` ~ ! @ # $ % ^ & * ( ) = + _ [ ] { } \\ | ; : ' \" , < > / ?.",
                       target="computerName")


def _check_group(name: str) -> None:
    invalid = sorted({c for c in name if c not in _GROUP_MARKS and unicodedata.category(c) not in _GROUP_LETTERS})
    if invalid:
        raise ArmError(400, "InvalidResourceGroup",
                       f"The provided resource group name '{name}' has these invalid characters: "
                       f"'{''.join(invalid)}'. The name can only be a letter, digit, '-', '.', '(', ')' or '_'.")
    if not 1 <= len(name) <= 90 or name.endswith("."):
        raise ArmError(400, "InvalidResourceGroup",
                       f"The provided resource group name '{name}' is invalid. Resource group names only allow up "
                       "to 90 characters and can only include alphanumeric, underscore, parentheses, hyphen, "
                       "period (except at end), and Unicode characters that match the allowed characters.")


def _invalid_name(name: str, type_name: str, rule: str) -> ArmError:
    return ArmError(400, "InvalidResourceName",
                    f"The resource name '{name}' is invalid for type '{type_name}': it must be {rule}.")


def _control_or_space(char: str) -> bool:
    return char.isspace() or unicodedata.category(char).startswith("C")
