"""Resource Graph's `healthresources` table (one availability status per VM, with the index lag) and the
join azmc's fleet survey uses to read every VM's availability in the same pages as the VMs."""

from __future__ import annotations

from azure.mgmt.resourcegraph.models import QueryRequest, QueryRequestOptions

from tests.emulator.builders import RG
from tests.emulator.steps import make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

SURVEY = ("resources | where type =~ 'microsoft.compute/virtualmachines' | extend vmid = tolower(id) "
          "| join kind=leftouter (healthresources | extend vmid = tolower(tostring(properties.targetResourceId)) "
          "| project vmid, availability = tostring(properties.availabilityState)) on vmid")


def query(clients: SyncClients, emulator: EmulatorHandle, text: str, **options: object) -> dict:
    request = QueryRequest(subscriptions=[emulator.subscription_id], query=text,
                           options=QueryRequestOptions(result_format="objectArray", **options))
    return clients.graph.resources(request).as_dict()


def test_one_health_row_per_vm_in_the_graphs_shape(emulator: EmulatorHandle, clients: SyncClients) -> None:
    vm = make_vm(clients, emulator, "h1")
    emulator.add_guest_fault("h1", "host_failure")
    rows = query(clients, emulator, "healthresources")["data"]
    assert len(rows) == 1
    row = rows[0]
    assert (row["id"], row["name"], row["type"]) == (
        f"{vm.id}/providers/Microsoft.ResourceHealth/availabilityStatuses/current", "current",
        "microsoft.resourcehealth/availabilitystatuses")
    assert row["resourceGroup"] == RG.lower() and row["subscriptionId"] == emulator.subscription_id
    props = row["properties"]
    assert (props["targetResourceId"], props["targetResourceType"], props["availabilityState"], props["context"],
            props["reasonType"]) == (vm.id, "Microsoft.Compute/virtualMachines", "Unavailable", "Platform Initiated",
                                     "Unplanned")
    assert props["occurredTime"] and "host server" in props["summary"]


def test_the_survey_join_pages_every_vm_with_its_availability(emulator: EmulatorHandle, clients: SyncClients) -> None:
    for i in range(5):
        make_vm(clients, emulator, f"fleet-{i}")
    emulator.add_guest_fault("fleet-1", "host_failure")
    clients.compute.virtual_machines.begin_deallocate(RG, "fleet-3").result()
    first = query(clients, emulator, SURVEY, top=3)
    assert first["total_records"] == 5 and first["skip_token"]
    second = query(clients, emulator, SURVEY, skip_token=first["skip_token"])
    rows = first["data"] + second["data"]
    assert {r["name"]: r["availability"] for r in rows} == {
        "fleet-0": "Available", "fleet-1": "Unavailable", "fleet-2": "Available", "fleet-3": "Unavailable",
        "fleet-4": "Available"}
    assert all(r["vmid"] == r["vmid1"] for r in rows)


def test_health_rows_follow_the_index_lag(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "lagging")
    emulator.settings(time_scale=1, index_lag_s=3600)
    emulator.add_guest_fault("lagging", "host_failure")
    # The graph shows the subscription of an hour ago: neither the VM nor its availability yet.
    assert query(clients, emulator, SURVEY)["data"] == []
    assert query(clients, emulator, "healthresources | count")["data"] == [{"Count": 0}]
    emulator.settings(time_scale=0)
    assert [r["availability"] for r in query(clients, emulator, SURVEY)["data"]] == ["Unavailable"]
    clients.compute.virtual_machines.begin_delete(RG, "lagging").result()
    assert query(clients, emulator, "healthresources | count")["data"] == [{"Count": 0}]
