"""Virtual networks and their subnets (subnets are stored as child resources)."""

from __future__ import annotations

import builtins
import copy
import uuid
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
from emulator.network.load_balancer_model import LB_TYPE
from emulator.state import EmulatorState

VNET_TYPE = "Microsoft.Network/virtualNetworks"
SUBNET_TYPE = "Microsoft.Network/virtualNetworks/subnets"
NIC_TYPE = "Microsoft.Network/networkInterfaces"


class VirtualNetworksBackend:
    def __init__(self, state: EmulatorState) -> None:
        self.state = state

    # ---- virtual networks

    def put(self, scope: Scope, name: str, request: dict[str, Any]) -> Outcome:
        scope, rid, existing = prepare_put(self.state, scope, VNET_TYPE, name)
        props = request.get("properties") or {}
        body = base_body(rid, name, VNET_TYPE, request)
        body["etag"] = etag()
        guid = existing.properties.get("resourceGuid") if existing else str(uuid.uuid4())
        body["properties"] = {
            **{k: v for k, v in copy.deepcopy(props).items() if k != "subnets"},
            "provisioningState": "Updating",
            "resourceGuid": guid,
            "addressSpace": props.get("addressSpace") or {"addressPrefixes": []},
            "dhcpOptions": props.get("dhcpOptions") or {"dnsServers": []},
            "virtualNetworkPeerings": [],
            "enableDdosProtection": bool(props.get("enableDdosProtection", False)),
            "privateEndpointVNetPolicies": props.get("privateEndpointVNetPolicies", "Disabled"),
        }
        vnet = self.state.store.put(Resource(VNET_TYPE, scope.subscription, scope.resource_group, body))
        if "subnets" in props:
            wanted = {s["name"].lower() for s in props["subnets"]}
            for subnet in self._subnets(vnet):
                if subnet.name.lower() not in wanted:
                    self._check_subnet_unused(subnet)
                    self.state.store.delete(subnet.id)
            for subnet in props["subnets"]:
                self._store_subnet(vnet, subnet["name"], subnet, "Succeeded")
        return self._finish(vnet, "virtualNetworks.put", 200 if existing else 201)

    def get(self, scope: Scope, name: str) -> dict[str, Any]:
        return self.render(get_existing(self.state, scope, VNET_TYPE, name))

    def list(self, subscription: str, resource_group: str | None) -> list[dict[str, Any]]:
        return [self.render(v) for v in listed(self.state, VNET_TYPE, subscription, resource_group)]

    def delete(self, scope: Scope, name: str) -> Outcome:
        vnet = deletable(self.state, scope, VNET_TYPE, name)
        if vnet is None:
            return Outcome(204)
        for subnet in self._subnets(vnet):
            self._check_subnet_unused(subnet)

        async def remove() -> None:
            for subnet in self._subnets(vnet):
                self.state.store.delete(subnet.id)
            self.state.store.delete(vnet.id)

        return self._operation(vnet, "virtualNetworks.delete", remove, 202)

    def render(self, vnet: Resource) -> dict[str, Any]:
        body = dict(vnet.body)
        body["properties"] = {**vnet.properties, "subnets": [self.render_subnet(s) for s in self._subnets(vnet)]}
        return body

    # ---- subnets

    def put_subnet(self, scope: Scope, vnet_name: str, name: str, request: dict[str, Any]) -> Outcome:
        vnet = get_existing(self.state, scope, VNET_TYPE, vnet_name)
        sid = f"{vnet.id}/subnets/{name}"
        ensure_idle(self.state, sid)
        existed = self.state.store.get(sid) is not None
        subnet = self._store_subnet(vnet, name, request, "Updating")
        return self._finish(subnet, "subnets.put", 200 if existed else 201, render=self.render_subnet)

    def get_subnet(self, scope: Scope, vnet_name: str, name: str) -> dict[str, Any]:
        vnet = get_existing(self.state, scope, VNET_TYPE, vnet_name)
        subnet = self.state.store.get(f"{vnet.id}/subnets/{name}")
        if subnet is None:
            raise errors.resource_not_found(f"{VNET_TYPE}/{vnet.name}/subnets", name, vnet.resource_group)
        return self.render_subnet(subnet)

    def list_subnets(self, scope: Scope, vnet_name: str) -> builtins.list[dict[str, Any]]:
        vnet = get_existing(self.state, scope, VNET_TYPE, vnet_name)
        return [self.render_subnet(s) for s in self._subnets(vnet)]

    def delete_subnet(self, scope: Scope, vnet_name: str, name: str) -> Outcome:
        vnet = get_existing(self.state, scope, VNET_TYPE, vnet_name)
        subnet = self.state.store.get(f"{vnet.id}/subnets/{name}")
        if subnet is None:
            return Outcome(204)
        ensure_idle(self.state, subnet.id)
        self._check_subnet_unused(subnet)

        async def remove() -> None:
            self.state.store.delete(subnet.id)

        return self._operation(subnet, "subnets.delete", remove, 202)

    def render_subnet(self, subnet: Resource) -> dict[str, Any]:
        body = dict(subnet.body)
        users = self._nic_ip_configs(subnet)
        body["properties"] = dict(subnet.properties)
        if users:
            body["properties"]["ipConfigurations"] = [{"id": ip} for ip in users]
        return body

    # ---- helpers

    def _subnets(self, vnet: Resource) -> builtins.list[Resource]:
        prefix = arm_ids.key(vnet.id) + "/subnets/"
        return [s for s in self.state.store.of_type(SUBNET_TYPE, vnet.subscription, vnet.resource_group)
                if arm_ids.key(s.id).startswith(prefix)]

    def _store_subnet(self, vnet: Resource, name: str, request: dict[str, Any], state: str) -> Resource:
        props = request.get("properties") or {}
        sid = f"{vnet.id}/subnets/{name}"
        body: dict[str, Any] = {
            "id": sid,
            "name": name,
            "type": SUBNET_TYPE,
            "etag": etag(),
            "properties": {
                **copy.deepcopy(props),
                "provisioningState": state,
                "privateEndpointNetworkPolicies": props.get("privateEndpointNetworkPolicies", "Disabled"),
                "privateLinkServiceNetworkPolicies": props.get("privateLinkServiceNetworkPolicies", "Enabled"),
                "delegations": [_delegation(sid, d) for d in props.get("delegations") or []],
                "serviceEndpoints": [_service_endpoint(e, vnet.body.get("location"))
                                     for e in props.get("serviceEndpoints") or []],
            },
        }
        if body["properties"]["delegations"]:
            body["properties"].setdefault("purpose", "")
        body["properties"].pop("ipConfigurations", None)  # read-only: rendered from the NICs
        return self.state.store.put(Resource(SUBNET_TYPE, vnet.subscription, vnet.resource_group, body))

    def _nic_ip_configs(self, subnet: Resource) -> builtins.list[str]:
        """What holds an address in the subnet: NIC ip configurations and load balancer frontends (Azure lists
        both in the subnet's `ipConfigurations`, and refuses to delete a subnet either still uses)."""
        wanted = arm_ids.key(subnet.id)
        found: builtins.list[str] = []
        for kind, collection in ((NIC_TYPE, "ipConfigurations"), (LB_TYPE, "frontendIPConfigurations")):
            for holder in self.state.store.of_type(kind, subnet.subscription):
                for ipc in holder.properties.get(collection, []):
                    ref = (ipc.get("properties") or {}).get("subnet") or {}
                    if arm_ids.key(ref.get("id", "")) == wanted:
                        found.append(ipc["id"])
        return found

    def _check_subnet_unused(self, subnet: Resource) -> None:
        if self._nic_ip_configs(subnet):
            raise errors.invalid(
                f"Subnet {subnet.name} is in use by {self._nic_ip_configs(subnet)[0]} and cannot be deleted. "
                "In order to delete the subnet, delete all the resources within the subnet. "
                "See aka.ms/deletesubnet.",
                code="InUseSubnetCannotBeDeleted",
            )

    def _finish(self, resource: Resource, op_name: str, status: int, render: Any = None) -> Outcome:
        def succeeded() -> None:
            resource.properties["provisioningState"] = "Succeeded"
            self.state.store.changed(resource)

        async def work() -> None:
            succeeded()

        def failed(_: errors.ArmError) -> None:
            resource.properties["provisioningState"] = "Failed"
            self.state.store.changed(resource)

        outcome = self._operation(resource, op_name, work, status, failed)
        outcome.body = (render or self.render)(resource)
        return outcome

    def _operation(self, resource: Resource, op_name: str, work: Any, status: int,
                   failed: Any = None) -> Outcome:
        vnet_location = resource.body.get("location") or self._vnet_location(resource)
        op = start_operation(self.state, resource, op_name, work, failed, location=vnet_location)
        return Outcome(status, None, op)

    def _vnet_location(self, subnet: Resource) -> str:
        vnet = self.state.store.get(subnet.id.rsplit("/subnets/", 1)[0])
        return vnet.body.get("location", "global") if vnet else "global"


def _delegation(subnet_id: str, delegation: dict[str, Any]) -> dict[str, Any]:
    """A subnet's delegation as Azure answers it: its id, etag, provisioning state and the actions it allows (the
    service names them; none known here, Microsoft's examples show `[]`)."""
    props = {"provisioningState": "Succeeded", "actions": [], **copy.deepcopy(delegation.get("properties") or {})}
    props["provisioningState"] = "Succeeded"
    return {"name": delegation.get("name"), "id": f"{subnet_id}/delegations/{delegation.get('name')}",
            "etag": etag(), "properties": props}


def _service_endpoint(endpoint: dict[str, Any], location: str | None) -> dict[str, Any]:
    """A service endpoint as Azure answers it: provisioned, and for the regions it serves, by default the virtual
    network's (which others Azure adds, a storage account's paired region, is its own to say)."""
    locations = endpoint.get("locations") or ([location] if location else [])
    return {**copy.deepcopy(endpoint), "locations": list(locations), "provisioningState": "Succeeded"}
