"""A network security group's rules as the network RP answers them (Microsoft's `NetworkSecurityGroupCreate` and
`NetworkSecurityGroupCreateWithRule` examples): each rule with its id, type, etag and provisioning state, and
the six default rules Azure puts in every group, which nobody can change."""

from __future__ import annotations

import copy
from typing import Any

from emulator.arm.common import etag

NSG_TYPE = "Microsoft.Network/networkSecurityGroups"
# (name, description, source prefix, destination prefix, access, priority, direction), in Azure's order.
_DEFAULT_RULES = (
    ("AllowVnetInBound", "Allow inbound traffic from all VMs in VNET", "VirtualNetwork", "VirtualNetwork",
     "Allow", 65000, "Inbound"),
    ("AllowAzureLoadBalancerInBound", "Allow inbound traffic from azure load balancer", "AzureLoadBalancer", "*",
     "Allow", 65001, "Inbound"),
    ("DenyAllInBound", "Deny all inbound traffic", "*", "*", "Deny", 65500, "Inbound"),
    ("AllowVnetOutBound", "Allow outbound traffic from all VMs to all VMs in VNET", "VirtualNetwork",
     "VirtualNetwork", "Allow", 65000, "Outbound"),
    ("AllowInternetOutBound", "Allow outbound traffic from all VMs to Internet", "*", "Internet", "Allow", 65001,
     "Outbound"),
    ("DenyAllOutBound", "Deny all outbound traffic", "*", "*", "Deny", 65500, "Outbound"),
)


def properties(rid: str, request: dict[str, Any]) -> dict[str, Any]:
    props = {k: copy.deepcopy(v) for k, v in request.items() if k not in ("securityRules", "defaultSecurityRules")}
    props.setdefault("flushConnection", False)
    props["securityRules"] = [_rule(rid, "securityRules", rule["name"], rule.get("properties") or {})
                              for rule in request.get("securityRules") or []]
    props["defaultSecurityRules"] = [
        _rule(rid, "defaultSecurityRules", name, {
            "description": description, "protocol": "*", "sourcePortRange": "*", "destinationPortRange": "*",
            "sourceAddressPrefix": source, "destinationAddressPrefix": destination, "access": access,
            "priority": priority, "direction": direction})
        for name, description, source, destination, access, priority, direction in _DEFAULT_RULES]
    return props


def _rule(rid: str, collection: str, name: str, props: dict[str, Any]) -> dict[str, Any]:
    out = {k: copy.deepcopy(v) for k, v in props.items() if k != "provisioningState"}
    # Azure lists the plural forms beside the singular ones, empty when the rule uses the singular.
    for plural in ("sourcePortRanges", "destinationPortRanges", "sourceAddressPrefixes",
                   "destinationAddressPrefixes"):
        out.setdefault(plural, [])
    return {"name": name, "id": f"{rid}/{collection}/{name}", "type": f"{NSG_TYPE}/{collection}", "etag": etag(),
            "properties": {"provisioningState": "Succeeded", **out}}
