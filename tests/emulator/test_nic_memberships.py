"""A NIC's NSG, application security groups, load balancer backend pools and public IP, through the real network
SDK: stored in Azure's shape, references that do not exist refused (InvalidResourceReference), a public IP
still on a NIC refused its delete (PublicIPAddressCannotBeDeleted), every one listed like the NIC."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.network import models as nm
from azure.mgmt.resourcegraph.models import QueryRequest

from emulator.seed import seed_asg_id, seed_backend_pool_id, seed_nsg_id
from tests.emulator.builders import LOCATION, RG, nic_body
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def _public_ip(clients: SyncClients, name: str = "vm1-pip") -> nm.PublicIPAddress:
    body = nm.PublicIPAddress(location=LOCATION, sku=nm.PublicIPAddressSku(name="Standard", tier="Regional"),
                              zones=["1"], public_ip_allocation_method="Static", tags={"azmc-machine": "vm1"})
    return clients.network.public_ip_addresses.begin_create_or_update(RG, name, body).result()


def _member_nic(emulator: EmulatorHandle, pip_id: str | None = None, nsg: str | None = None,
                asgs: list[str] | None = None, pools: list[str] | None = None) -> nm.NetworkInterface:
    body = nic_body(emulator.subnet_id)
    sub = emulator.subscription_id
    body.network_security_group = nm.NetworkSecurityGroup(id=nsg or seed_nsg_id(sub))
    ipc = body.ip_configurations[0]
    ipc.application_security_groups = [nm.ApplicationSecurityGroup(id=a) for a in (asgs or [seed_asg_id(sub)])]
    ipc.load_balancer_backend_address_pools = [nm.BackendAddressPool(id=p) for p in
                                               (pools or [seed_backend_pool_id(sub)])]
    if pip_id:
        ipc.public_ip_address = nm.PublicIPAddress(id=pip_id)
    return body


def test_a_nic_joins_the_seeded_nsg_asg_and_pool_in_azures_shape(emulator: EmulatorHandle,
                                                                 clients: SyncClients) -> None:
    sub = emulator.subscription_id
    nic = clients.network.network_interfaces.begin_create_or_update(RG, "vm1-nic", _member_nic(emulator)).result()
    assert nic.network_security_group.id.lower() == seed_nsg_id(sub).lower()
    ipc = clients.network.network_interfaces.get(RG, "vm1-nic").ip_configurations[0]
    assert [a.id.lower() for a in ipc.application_security_groups] == [seed_asg_id(sub).lower()]
    assert [p.id.lower() for p in ipc.load_balancer_backend_address_pools] == [seed_backend_pool_id(sub).lower()]
    # The other side says so too, as Azure renders it.
    nsg = clients.network.network_security_groups.get(RG, "azmc-nsg")
    assert [n.id for n in nsg.network_interfaces] == [nic.id]
    pool = clients.network.load_balancers.get(RG, "azmc-lb").backend_address_pools[0]
    assert [c.id for c in pool.backend_ip_configurations] == [ipc.id]


@pytest.mark.parametrize("missing", ["nsg", "asg", "pool", "lb", "pip"])
def test_a_reference_that_does_not_exist_is_refused(emulator: EmulatorHandle, clients: SyncClients,
                                                     missing: str) -> None:
    sub = emulator.subscription_id
    base = f"/subscriptions/{sub}/resourceGroups/{RG}/providers/Microsoft.Network"
    wrong = {
        "nsg": {"nsg": f"{base}/networkSecurityGroups/nope"},
        "asg": {"asgs": [f"{base}/applicationSecurityGroups/nope"]},
        "pool": {"pools": [f"{base}/loadBalancers/azmc-lb/backendAddressPools/nope"]},
        "lb": {"pools": [f"{base}/loadBalancers/nope/backendAddressPools/azmc-pool"]},
        "pip": {"pip_id": f"{base}/publicIPAddresses/nope"},
    }[missing]
    with pytest.raises(HttpResponseError) as refused:
        clients.network.network_interfaces.begin_create_or_update(RG, "n1", _member_nic(emulator, **wrong)).result()
    assert refused.value.status_code == 400
    assert refused.value.error.code == "InvalidResourceReference"
    assert "nope" in refused.value.error.message
    assert not emulator.resources("networkInterfaces")


def test_memberships_change_in_place_with_a_nic_put(emulator: EmulatorHandle, clients: SyncClients) -> None:
    clients.network.network_interfaces.begin_create_or_update(RG, "vm1-nic", _member_nic(emulator)).result()
    clients.network.application_security_groups.begin_create_or_update(
        RG, "web", nm.ApplicationSecurityGroup(location=LOCATION)).result()
    web = clients.network.application_security_groups.get(RG, "web").id
    body = _member_nic(emulator, asgs=[web])
    body.network_security_group = None
    before = clients.network.network_interfaces.get(RG, "vm1-nic")
    after = clients.network.network_interfaces.begin_create_or_update(RG, "vm1-nic", body).result()
    assert after.network_security_group is None
    assert [a.id for a in after.ip_configurations[0].application_security_groups] == [web]
    assert after.ip_configurations[0].private_ip_address == before.ip_configurations[0].private_ip_address


def test_a_public_ip_in_azures_shape_attached_listed_and_refused_its_delete_while_attached(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    pip = _public_ip(clients)
    assert (pip.sku.name, pip.public_ip_allocation_method, pip.zones, pip.provisioning_state) == (
        "Standard", "Static", ["1"], "Succeeded")
    assert pip.ip_address  # a static address exists from the PUT
    nic = clients.network.network_interfaces.begin_create_or_update(
        RG, "vm1-nic", _member_nic(emulator, pip_id=pip.id)).result()
    assert clients.network.public_ip_addresses.get(RG, "vm1-pip").ip_configuration.id == nic.ip_configurations[0].id
    listed = {r.name: r.type for r in clients.resources.resources.list_by_resource_group(
        RG, filter="substringof('vm1', name)")}
    assert listed["vm1-pip"] == "Microsoft.Network/publicIPAddresses"
    assert [p.name for p in clients.network.public_ip_addresses.list(RG)] == ["vm1-pip"]
    graph = clients.graph.resources(QueryRequest(
        subscriptions=[emulator.subscription_id],
        query="Resources | where type =~ 'microsoft.network/publicipaddresses' | project name, tags"))
    assert graph.data == [{"name": "vm1-pip", "tags": {"azmc-machine": "vm1"}}]

    with pytest.raises(HttpResponseError) as refused:
        clients.network.public_ip_addresses.begin_delete(RG, "vm1-pip").result()
    assert refused.value.status_code == 400
    assert refused.value.error.code == "PublicIPAddressCannotBeDeleted"
    assert nic.ip_configurations[0].id in refused.value.error.message

    clients.network.network_interfaces.begin_delete(RG, "vm1-nic").result()
    clients.network.public_ip_addresses.begin_delete(RG, "vm1-pip").result()
    assert not emulator.resources("publicIPAddresses")
