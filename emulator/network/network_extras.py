"""Network security groups, application security groups, load balancers and public IP addresses: what a NIC
refers to. Stored in Azure's shape, provisioned in the PUT's own answer (as the network RP answers), with the
references the NICs hold rendered on read (an NSG's `networkInterfaces`, a public IP's `ipConfiguration`, a
backend pool's `backendIPConfigurations`), and a public IP still on a NIC refused its delete as Azure does.
"""

from __future__ import annotations

import builtins
import copy
import hashlib
import uuid
from collections.abc import Callable
from typing import Any

from emulator.arm import arm_ids, errors
from emulator.arm.arm_ids import Scope
from emulator.arm.common import (
    base_body,
    deletable,
    ensure_idle,
    etag,
    get_existing,
    listed,
    prepare_put,
    start_operation,
)
from emulator.arm.outcome import Outcome
from emulator.arm.store import Resource
from emulator.network import load_balancer_model, security_rules
from emulator.network.private_ips import next_private_ip
from emulator.state import EmulatorState

NSG_TYPE = security_rules.NSG_TYPE
ASG_TYPE = "Microsoft.Network/applicationSecurityGroups"
LB_TYPE = load_balancer_model.LB_TYPE
PIP_TYPE = "Microsoft.Network/publicIPAddresses"
NIC_TYPE = "Microsoft.Network/networkInterfaces"
_STANDARD = {"name": "Standard", "tier": "Regional"}


def _pip_properties(rid: str, props: dict[str, Any]) -> dict[str, Any]:
    allocation = props.get("publicIPAllocationMethod", "Dynamic")
    digest = uuid.uuid5(uuid.NAMESPACE_URL, rid.lower()).bytes
    out: dict[str, Any] = {
        **{k: copy.deepcopy(v) for k, v in props.items() if k not in _PIP_READ_ONLY},
        "publicIPAllocationMethod": allocation,
        "publicIPAddressVersion": props.get("publicIPAddressVersion", "IPv4"),
        "idleTimeoutInMinutes": props.get("idleTimeoutInMinutes", 4),
        "ipTags": copy.deepcopy(props.get("ipTags") or []),
        # Azure's answer always carries DDoS settings; without a plan of its own an address inherits its
        # virtual network's protection.
        "ddosSettings": copy.deepcopy(props.get("ddosSettings") or {"protectionMode": "VirtualNetworkInherited"}),
    }
    if allocation == "Static":  # a static address exists from the PUT (a dynamic one only once attached)
        out["ipAddress"] = f"20.{digest[0]}.{digest[1]}.{max(1, digest[2])}"
    return out


def with_fqdn(props: dict[str, Any], location: str, rid: str) -> None:
    """A DNS label's name, as Azure forms it: `<label>.<region>.cloudapp.azure.com`, or with a reuse scope
    (`domainNameLabelScope`) `<label>.<hash>.<region>.sysgen.cloudapp.azure.com`, where Azure's hash of the scope is
    its own: here 16 letters derived from the scope and the address's subscription and group."""
    dns = props.get("dnsSettings")
    if not (isinstance(dns, dict) and dns.get("domainNameLabel")):
        return
    region = location.replace(" ", "").lower()
    scope = dns.get("domainNameLabelScope")
    if scope:
        digest = hashlib.sha256(f"{scope}|{'/'.join(rid.lower().split('/')[:5])}".encode()).digest()
        hashed = "".join(chr(ord("a") + b % 26) for b in digest[:16])
        fqdn = f"{dns['domainNameLabel']}.{hashed}.{region}.sysgen.cloudapp.azure.com"
    else:
        fqdn = f"{dns['domainNameLabel']}.{region}.cloudapp.azure.com"
    props["dnsSettings"] = {**dns, "fqdn": fqdn}


# Rendered from the NICs or allocated here, never taken from a PUT.
_PIP_READ_ONLY = {"ipConfiguration", "ipAddress", "provisioningState", "resourceGuid"}


_KINDS: dict[str, Callable[[str, dict[str, Any]], dict[str, Any]]] = {
    NSG_TYPE: security_rules.properties, ASG_TYPE: lambda rid, props: {}, PIP_TYPE: _pip_properties,
}


class NetworkExtrasBackend:
    """One backend for the four types: they differ only in their properties and what renders on read."""

    def __init__(self, state: EmulatorState) -> None:
        self.state = state

    def put(self, resource_type: str, scope: Scope, name: str, request: dict[str, Any]) -> Outcome:
        scope, rid, existing = prepare_put(self.state, scope, resource_type, name)
        body = base_body(rid, name, resource_type, request)
        if resource_type in (LB_TYPE, PIP_TYPE):
            body["sku"] = request.get("sku") or dict(_STANDARD)
        body["etag"] = etag()
        old = existing.properties if existing else {}
        requested = request.get("properties") or {}
        if resource_type == LB_TYPE:
            kind = load_balancer_model.properties(rid, requested, old,
                                                  lambda subnet: next_private_ip(self.state, subnet))
        else:
            kind = _KINDS[resource_type](rid, requested)
        if resource_type == PIP_TYPE:
            with_fqdn(kind, body["location"], rid)
        body["properties"] = {
            **kind,
            "provisioningState": "Succeeded",
            "resourceGuid": old.get("resourceGuid") or str(uuid.uuid4()),
        }
        resource = self.state.store.put(Resource(resource_type, scope.subscription, scope.resource_group, body))

        async def work() -> None:
            return None

        op = start_operation(self.state, resource, f"{_route_type(resource_type)}.put", work)
        return Outcome(200 if existing else 201, self.render(resource), op)

    def update_tags(self, resource_type: str, scope: Scope, name: str, request: dict[str, Any]) -> Outcome:
        """`update_tags` (PATCH with `tags`): synchronous, the tags replaced as a whole, as for a NIC."""
        resource = get_existing(self.state, scope, resource_type, name)
        ensure_idle(self.state, resource.id)
        resource.body["tags"] = dict(request.get("tags") or {})
        resource.body["etag"] = etag()
        self.state.store.changed(resource)
        return Outcome(200, self.render(resource))

    def get(self, resource_type: str, scope: Scope, name: str) -> dict[str, Any]:
        return self.render(get_existing(self.state, scope, resource_type, name))

    def list(self, resource_type: str, subscription: str, resource_group: str | None) -> list[dict[str, Any]]:
        return [self.render(r) for r in listed(self.state, resource_type, subscription, resource_group)]

    def delete(self, resource_type: str, scope: Scope, name: str) -> Outcome:
        resource = deletable(self.state, scope, resource_type, name)
        if resource is None:
            return Outcome(204)
        if resource_type == PIP_TYPE:
            users = self._nic_ip_configs("publicIPAddress", resource.id)
            if users:
                raise errors.ArmError(
                    400, "PublicIPAddressCannotBeDeleted",
                    f"Public IP address {resource.id} can not be deleted since it is still allocated to resource "
                    f"{users[0]}. In order to delete the public IP, disassociate/detach the Public IP address "
                    "from the resource.  To learn how to do this, see aka.ms/deletepublicip.")

        async def work() -> None:
            self.state.store.delete(resource.id)

        op = start_operation(self.state, resource, f"{_route_type(resource_type)}.delete", work)
        return Outcome(202, None, op)

    def render(self, resource: Resource) -> dict[str, Any]:
        """The stored body with what the NICs say about it (never stored twice, so never stale)."""
        body = copy.deepcopy(resource.body)
        props = body["properties"]
        if resource.type == NSG_TYPE:
            nics = [nic.id for nic in self.state.store.of_type(NIC_TYPE, resource.subscription)
                    if arm_ids.key((nic.properties.get("networkSecurityGroup") or {}).get("id", ""))
                    == arm_ids.key(resource.id)]
            if nics:
                props["networkInterfaces"] = [{"id": nic} for nic in nics]
        elif resource.type == PIP_TYPE:
            users = self._nic_ip_configs("publicIPAddress", resource.id)
            if users:
                props["ipConfiguration"] = {"id": users[0]}
        elif resource.type == LB_TYPE:
            for pool in props.get("backendAddressPools", []):
                users = self._nic_ip_configs("loadBalancerBackendAddressPools", pool["id"])
                if users:
                    pool["properties"]["backendIPConfigurations"] = [{"id": ipc} for ipc in users]
        return body

    def _nic_ip_configs(self, field: str, target_id: str) -> builtins.list[str]:
        """The ids of the NIC ip configurations whose `field` (one reference or a list of them) is `target_id`, and
        for a public IP the load balancer frontends that hold it (Azure shows either as its `ipConfiguration`)."""
        wanted = arm_ids.key(target_id)
        subscription = arm_ids.parse(target_id).get("subscriptions", "")
        holders = [(nic, "ipConfigurations") for nic in self.state.store.of_type(NIC_TYPE, subscription)]
        if field == "publicIPAddress":
            holders += [(lb, "frontendIPConfigurations") for lb in self.state.store.of_type(LB_TYPE, subscription)]
        found = []
        for holder, collection in holders:
            for ipc in holder.properties.get(collection, []):
                refs = (ipc.get("properties") or {}).get(field) or []
                refs = refs if isinstance(refs, list) else [refs]
                if any(arm_ids.key(ref.get("id", "")) == wanted for ref in refs if isinstance(ref, dict)):
                    found.append(ipc["id"])
        return found


def _route_type(resource_type: str) -> str:
    """`Microsoft.Network/publicIPAddresses` -> `publicIPAddresses` (operation names: `<type>.<verb>`)."""
    return resource_type.split("/", 1)[1]
