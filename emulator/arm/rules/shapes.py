"""JSON types of the request bodies azmc sends, per resource type: a wrong type is ARM's 400, never a crash.

A shape is a Python type (`str`, `int` — never a bool —, `float` — any number —, `bool`, `dict` for any
object), a dict of shapes (an object whose listed keys must have those shapes; other keys pass), or a
one-element list (an array of that shape). `Required(shape)` marks a key that must be present.
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass
from typing import Any

from emulator.arm.errors import ArmError
from emulator.arm.rules.json_body import invalid_content


@dataclass(frozen=True)
class Required:
    shape: Any


_ID = {"id": str}
_SKU = {"name": str, "tier": str}
_SUBNET_PROPERTIES = {
    "addressPrefix": str, "addressPrefixes": [str], "privateEndpointNetworkPolicies": str,
    "privateLinkServiceNetworkPolicies": str, "delegations": [dict], "serviceEndpoints": [dict],
    "networkSecurityGroup": _ID, "routeTable": _ID, "natGateway": _ID, "defaultOutboundAccess": bool,
}
_MANAGED_DISK = {"id": str, "storageAccountType": str}
_DISK_ENTRY = {"lun": int, "name": str, "createOption": str, "diskSizeGB": int, "deleteOption": str,
               "caching": str, "toBeDetached": bool, "osType": str, "managedDisk": _MANAGED_DISK}
_VM_PROPERTIES = {
    "hardwareProfile": {"vmSize": str},
    "storageProfile": {
        "imageReference": {"publisher": str, "offer": str, "sku": str, "version": str, "id": str},
        "osDisk": _DISK_ENTRY,
        "dataDisks": [_DISK_ENTRY],
    },
    "osProfile": {"computerName": str, "adminUsername": str, "adminPassword": str, "customData": str,
                  "linuxConfiguration": dict, "windowsConfiguration": dict, "secrets": [dict]},
    "networkProfile": {"networkInterfaces": [{"id": str, "properties": {"primary": bool, "deleteOption": str}}],
                       "networkInterfaceConfigurations": [dict]},
    "priority": str, "evictionPolicy": str, "billingProfile": {"maxPrice": float},
    "securityProfile": dict, "diagnosticsProfile": dict, "additionalCapabilities": dict,
    "scheduledEventsPolicy": {
        "userInitiatedRedeploy": {"automaticallyApprove": bool}, "userInitiatedReboot": {"automaticallyApprove": bool},
        "scheduledEventsAdditionalPublishingTargets": {
            "eventGridAndResourceGraph": {"enable": bool, "scheduledEventsApiVersion": str}},
        "allInstancesDown": {"automaticallyApprove": bool}},
}
_DISK_PROPERTIES = {
    "creationData": {"createOption": str}, "diskSizeGB": int, "osType": str, "encryption": dict,
    "networkAccessPolicy": str, "publicNetworkAccess": str, "diskIOPSReadWrite": int, "diskMBpsReadWrite": int,
}
_NIC_PROPERTIES = {
    "ipConfigurations": [{"name": str, "properties": {
        "subnet": _ID, "privateIPAddress": str, "privateIPAllocationMethod": str, "privateIPAddressVersion": str,
        "primary": bool, "publicIPAddress": _ID, "applicationSecurityGroups": [_ID],
        "loadBalancerBackendAddressPools": [_ID]}}],
    "dnsSettings": {"dnsServers": [str]}, "enableAcceleratedNetworking": bool, "enableIPForwarding": bool,
    "disableTcpStateTracking": bool, "nicType": str, "auxiliaryMode": str, "networkSecurityGroup": _ID,
}
_PIP_PROPERTIES = {"publicIPAllocationMethod": str, "publicIPAddressVersion": str, "idleTimeoutInMinutes": int,
                   "deleteOption": str, "ipTags": [dict]}
_VNET_PROPERTIES = {
    "addressSpace": {"addressPrefixes": [str]}, "dhcpOptions": {"dnsServers": [str]},
    "subnets": [{"name": Required(str), "properties": _SUBNET_PROPERTIES}], "enableDdosProtection": bool,
}
# Top-level fields every tracked resource shares (tags have their own rules).
_TOP = {"location": str, "zones": [str], "sku": _SKU, "managedBy": str, "identity": dict, "plan": dict}

# (resource type, verb) -> shape of the request body.
SHAPES: dict[tuple[str, str], dict[str, Any]] = {
    ("resourceGroups", "put"): {**_TOP, "properties": dict},
    ("virtualNetworks", "put"): {**_TOP, "properties": _VNET_PROPERTIES},
    ("subnets", "put"): {"name": str, "properties": _SUBNET_PROPERTIES},
    ("networkInterfaces", "put"): {**_TOP, "properties": _NIC_PROPERTIES},
    ("publicIPAddresses", "put"): {**_TOP, "properties": _PIP_PROPERTIES},
    ("disks", "put"): {**_TOP, "properties": _DISK_PROPERTIES},
    ("disks", "patch"): {"sku": _SKU, "properties": _DISK_PROPERTIES},
    ("virtualMachines", "put"): {**_TOP, "properties": _VM_PROPERTIES},
    ("virtualMachines", "patch"): {"zones": [str], "identity": dict, "plan": dict, "properties": _VM_PROPERTIES},
    ("resourceGraph", "query"): {"query": str, "subscriptions": [str], "managementGroups": [str],
                                 "options": {"$top": int, "$skip": int, "$skipToken": str, "resultFormat": str},
                                 "facets": [dict]},
}
_TYPE_NAMES = {str: "String", int: "Int32", float: "Double", bool: "Boolean", dict: "Object"}


def check_shape(resource_type: str, verb: str, body: dict[str, Any]) -> None:
    shape = SHAPES.get((resource_type, verb))
    if shape is not None:
        _walk(shape, body, "")
    for prefix in _address_prefixes(body):
        _check_prefix(prefix)


def _walk(shape: Any, value: Any, path: str) -> None:
    if isinstance(shape, Required):
        shape = shape.shape
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            raise _mismatch(value, "Object", path)
        for key, inner in shape.items():
            if key in value:
                _walk(inner, value[key], f"{path}.{key}" if path else key)
            elif isinstance(inner, Required):
                raise invalid_content(f"Required property '{key}' not found in JSON.", path)
    elif isinstance(shape, list):
        if not isinstance(value, list):
            raise _mismatch(value, "Array", path)
        for index, item in enumerate(value):
            _walk(shape[0], item, f"{path}[{index}]")
    elif not _is(shape, value):
        raise _mismatch(value, _TYPE_NAMES[shape], path)


def _is(kind: type, value: Any) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, kind)


def _mismatch(value: Any, expected: str, path: str) -> ArmError:
    shown = json.dumps(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return invalid_content(f"Error converting value {shown} to type '{expected}'.", path)


def _address_prefixes(body: dict[str, Any]) -> list[str]:
    """Every CIDR the body carries (vnet address space, inline or standalone subnets)."""
    given = body.get("properties")
    props = given if isinstance(given, dict) else {}
    found = list((props.get("addressSpace") or {}).get("addressPrefixes") or [])
    subnets = [(s.get("properties") or {}) for s in props.get("subnets") or [] if isinstance(s, dict)] + [props]
    for subnet in subnets:
        if isinstance(subnet, dict):
            found += ([subnet["addressPrefix"]] if isinstance(subnet.get("addressPrefix"), str) else [])
            found += [p for p in subnet.get("addressPrefixes") or [] if isinstance(p, str)]
    return [p for p in found if isinstance(p, str)]


def _check_prefix(prefix: str) -> None:
    try:
        ipaddress.ip_network(prefix, strict=False)
    except ValueError:
        raise ArmError(400, "InvalidAddressPrefixFormat",
                       f"Address prefix {prefix} is not formatted correctly. It should follow CIDR notation, for "
                       "example 10.0.0.0/24.") from None
