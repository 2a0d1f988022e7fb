"""The Resource Graph route: rows in the graph's shape from the emulator's resources, with index lag."""

from __future__ import annotations

import time

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.resourcegraph.models import QueryRequest, QueryRequestOptions

from tests.emulator.builders import RG, nic_body, vm_body
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients, async_sdk_clients

COLUMNS = {"id", "name", "type", "tenantId", "kind", "location", "resourceGroup", "subscriptionId", "managedBy",
           "sku", "plan", "properties", "tags", "zones", "identity", "extendedLocation"}


def query(clients: SyncClients, emulator: EmulatorHandle, text: str, **options: object) -> list[dict]:
    request = QueryRequest(subscriptions=[emulator.subscription_id], query=text,
                           options=QueryRequestOptions(**options) if options else None)
    return clients.graph.resources(request).data


def make_machine(clients: SyncClients, emulator: EmulatorHandle, name: str) -> None:
    nic = clients.network.network_interfaces.begin_create_or_update(
        RG, f"{name}-nic", nic_body(emulator.subnet_id, {"azmc-machine": name})).result()
    clients.compute.virtual_machines.begin_create_or_update(RG, name, vm_body(name, nic.id)).result()


def test_rows_have_resource_graph_shape(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_machine(clients, emulator, "g1")
    rows = query(clients, emulator, "Resources | where tags['azmc-machine'] == 'g1' | order by name asc")
    assert [r["type"] for r in rows] == [
        "microsoft.compute/virtualmachines", "microsoft.network/networkinterfaces"]
    assert [set(r) for r in rows] == [COLUMNS, COLUMNS]
    vm = rows[0]
    assert vm["resourceGroup"] == RG.lower() and vm["subscriptionId"] == emulator.subscription_id
    assert vm["properties"]["provisioningState"] == "Succeeded"
    disks = query(clients, emulator, "Resources | where type =~ 'Microsoft.Compute/disks' | project name, managedBy")
    assert sorted(d["name"] for d in disks) == ["g1-0-data-disk", "g1-os-disk"]
    assert {d["managedBy"].lower() for d in disks} == {vm["id"].lower()}


def test_unsupported_query_is_400(emulator: EmulatorHandle, clients: SyncClients) -> None:
    with pytest.raises(HttpResponseError) as caught:
        query(clients, emulator, "Resources | mv-expand tags")
    assert caught.value.status_code == 400 and caught.value.error.code == "BadRequest"


def test_index_lag_delays_appearance_and_disappearance(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.settings(time_scale=0.1, index_lag_s=3)  # 0.3 s of lag
    text = "Resources | where name == 'lag-nic' | project name"
    clients.network.network_interfaces.begin_create_or_update(RG, "lag-nic", nic_body(emulator.subnet_id)).result()
    assert query(clients, emulator, text) == []
    time.sleep(0.35)
    assert query(clients, emulator, text) == [{"name": "lag-nic"}]
    clients.network.network_interfaces.begin_delete(RG, "lag-nic").result()
    assert query(clients, emulator, text) == [{"name": "lag-nic"}]
    time.sleep(0.35)
    assert query(clients, emulator, text) == []


async def test_graph_through_aio_client_pages(emulator: EmulatorHandle) -> None:
    aio = async_sdk_clients(emulator)
    try:
        for i in range(3):
            poller = await aio.network.network_interfaces.begin_create_or_update(
                RG, f"p{i}-nic", nic_body(emulator.subnet_id))
            await poller.result()
        request = QueryRequest(subscriptions=[emulator.subscription_id],
                               query="Resources | where type =~ 'microsoft.network/networkinterfaces' | project id",
                               options=QueryRequestOptions(top=2))
        first = await aio.graph.resources(request)
        assert first.total_records == 3 and first.count == 2 and first.skip_token
        request.options = QueryRequestOptions(top=2, skip_token=first.skip_token)
        second = await aio.graph.resources(request)
        assert second.count == 1 and not second.skip_token
        assert len({r["id"] for r in first.data + second.data}) == 3
    finally:
        await aio.close()


def test_vm_rows_carry_the_power_state_and_follow_a_deallocation(emulator: EmulatorHandle,
                                                                 clients: SyncClients) -> None:
    make_machine(clients, emulator, "p1")
    text = "Resources | where type =~ 'microsoft.compute/virtualmachines' and name == 'p1' | project properties"

    def power() -> str:
        return query(clients, emulator, text)[0]["properties"]["extended"]["instanceView"]["powerState"]["code"]

    assert power() == "PowerState/running"
    clients.compute.virtual_machines.begin_deallocate(RG, "p1").result()
    assert power() == "PowerState/deallocated"
    nic = query(clients, emulator, "Resources | where name == 'p1-nic' | project properties")[0]
    assert "extended" not in nic["properties"]
