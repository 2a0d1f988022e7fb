"""A load balancer's properties as the network RP answers them (Microsoft's `LoadBalancerCreate` example): every
child (frontend IP configuration, backend pool, rule, probe, NAT rule or pool, outbound rule) with its id, type,
etag and provisioning state; the defaults Azure fills in; and on each frontend, pool and probe the ids of the
rules that use it. Pure: the NICs in a pool are rendered on read (network_extras).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from emulator.arm import arm_ids
from emulator.arm.common import etag

LB_TYPE = "Microsoft.Network/loadBalancers"
CHILDREN = ("frontendIPConfigurations", "backendAddressPools", "loadBalancingRules", "probes", "inboundNatRules",
            "inboundNatPools", "outboundRules")
# What Azure fills in when a PUT leaves it out, per child collection.
_DEFAULTS: dict[str, dict[str, Any]] = {
    "loadBalancingRules": {"idleTimeoutInMinutes": 4, "enableFloatingIP": False, "enableTcpReset": False,
                           "loadDistribution": "Default", "disableOutboundSnat": False,
                           "enableConnectionTracking": False},
    "probes": {"intervalInSeconds": 15, "numberOfProbes": 2, "probeThreshold": 1},
    "inboundNatRules": {"idleTimeoutInMinutes": 4, "enableFloatingIP": False, "enableTcpReset": False},
    "inboundNatPools": {"idleTimeoutInMinutes": 4, "enableFloatingIP": False, "enableTcpReset": False},
    "outboundRules": {"idleTimeoutInMinutes": 4, "enableTcpReset": False, "allocatedOutboundPorts": 0},
}
# Which references of a rule are rendered back on the child they name: (rule collection, its field) -> the key
# the named child lists the rule under.
_BACK_REFERENCES = {
    ("loadBalancingRules", "frontendIPConfiguration"): "loadBalancingRules",
    ("loadBalancingRules", "backendAddressPool"): "loadBalancingRules",
    ("loadBalancingRules", "probe"): "loadBalancingRules",
    ("inboundNatRules", "frontendIPConfiguration"): "inboundNatRules",
    ("inboundNatPools", "frontendIPConfiguration"): "inboundNatPools",
    ("outboundRules", "frontendIPConfigurations"): "outboundRules",
    ("outboundRules", "backendAddressPool"): "outboundRules",
}


def properties(rid: str, request: dict[str, Any], old: dict[str, Any],
               next_ip: Callable[[str], str | None]) -> dict[str, Any]:
    """The stored properties of a load balancer PUT with `request` properties over `old` ones. `next_ip(subnet_id)`
    hands out a new Dynamic frontend's private address; an update keeps the one it had."""
    props = {k: copy.deepcopy(v) for k, v in request.items() if k not in CHILDREN}
    by_id: dict[str, dict[str, Any]] = {}
    for collection in CHILDREN:
        children = []
        for item in request.get(collection) or []:
            child = _child(rid, collection, item)
            by_id[arm_ids.key(child["id"])] = child
            children.append(child)
        props[collection] = children
    had = {f["name"].lower(): f["properties"].get("privateIPAddress")
           for f in old.get("frontendIPConfigurations") or []}
    for frontend in props["frontendIPConfigurations"]:
        _allocate(frontend["properties"], had.get(frontend["name"].lower()), next_ip)
    for (collection, field), listed_as in _BACK_REFERENCES.items():
        for rule in props[collection]:
            refs = rule["properties"].get(field)
            for ref in refs if isinstance(refs, list) else [refs] if refs else []:
                target = by_id.get(arm_ids.key((ref or {}).get("id", "")))
                if target is not None:
                    target["properties"].setdefault(listed_as, []).append({"id": rule["id"]})
    return props


def _child(rid: str, collection: str, item: dict[str, Any]) -> dict[str, Any]:
    props = {**_DEFAULTS.get(collection, {}), **copy.deepcopy(item.get("properties") or {})}
    props.pop("provisioningState", None)
    child: dict[str, Any] = {
        "name": item["name"], "id": f"{rid}/{collection}/{item['name']}", "type": f"{LB_TYPE}/{collection}",
        "etag": etag(), "properties": {"provisioningState": "Succeeded", **props},
    }
    if item.get("zones"):
        child["zones"] = list(item["zones"])
    return child


def _allocate(frontend: dict[str, Any], had: str | None, next_ip: Callable[[str], str | None]) -> None:
    """A frontend on a subnet gets a private address: the PUT's when Static, else the subnet's next free one. Every
    frontend, a public one too, shows its allocation method and IP version (Microsoft's
    `LoadBalancerCreateWithOutboundRules` example)."""
    frontend.setdefault("privateIPAllocationMethod", "Static" if frontend.get("privateIPAddress") else "Dynamic")
    frontend.setdefault("privateIPAddressVersion", "IPv4")
    subnet = (frontend.get("subnet") or {}).get("id")
    if not subnet:
        return
    if frontend["privateIPAllocationMethod"] == "Dynamic" or not frontend.get("privateIPAddress"):
        frontend["privateIPAddress"] = had or next_ip(subnet) or "10.0.0.4"
