"""Resource Health (`availability_statuses.get_by_resource`, azure-mgmt-resourcehealth) for VMs: Available,
Unavailable for a host failure (platform-initiated) or a stop someone asked for (customer-initiated), states
forced through `/_emulator/resource-health`, and 404 for a VM that does not exist."""

from __future__ import annotations

import json
import urllib.error
from collections.abc import Iterator
from typing import Any

import pytest
from azure.core.exceptions import ResourceNotFoundError
from azure.mgmt.resourcehealth import ResourceHealthMgmtClient

from tests.emulator.builders import RG, vm_body
from tests.emulator.steps import make_nic, make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import StaticToken, SyncClients, client_kwargs

DEALLOCATED = "This virtual machine is stopped and deallocated as requested by an authorized user or process."


@pytest.fixture
def health(emulator: EmulatorHandle) -> Iterator[ResourceHealthMgmtClient]:
    client = ResourceHealthMgmtClient(StaticToken(), emulator.subscription_id, **client_kwargs(emulator))
    yield client
    client.close()


def status(health: ResourceHealthMgmtClient, vm_id: str) -> dict[str, Any]:
    return health.availability_statuses.get_by_resource(vm_id).as_dict()


def test_a_running_vm_is_available_in_azures_shape(
        emulator: EmulatorHandle, clients: SyncClients, health: ResourceHealthMgmtClient) -> None:
    vm = make_vm(clients, emulator, "fine")
    found = status(health, vm.id)
    assert found["id"] == f"{vm.id}/providers/Microsoft.ResourceHealth/availabilityStatuses/current"
    assert (found["name"], found["type"], found["location"]) == (
        "current", "Microsoft.ResourceHealth/AvailabilityStatuses", vm.location)
    props = found["properties"]
    assert props["availabilityState"] == "Available" and props["title"] == "Available"
    assert {"summary", "reasonType", "context", "category", "reasonChronicity", "detailedStatus", "occuredTime",
            "reportedTime"} <= set(props)
    typed = health.availability_statuses.get_by_resource(vm.id).properties
    assert typed.occured_time is not None and typed.reported_time >= typed.occured_time


@pytest.mark.parametrize("fault", ["hang", "boot_failure", "kernel_panic"])
def test_a_guest_fault_is_invisible_to_resource_health(
        emulator: EmulatorHandle, clients: SyncClients, health: ResourceHealthMgmtClient, fault: str) -> None:
    vm = make_vm(clients, emulator, "quietly-sick")
    emulator.add_guest_fault("quietly-sick", fault)
    assert status(health, vm.id)["properties"]["availabilityState"] == "Available"


def test_a_host_failure_is_unavailable_platform_initiated_until_redeployed(
        emulator: EmulatorHandle, clients: SyncClients, health: ResourceHealthMgmtClient) -> None:
    vm = make_vm(clients, emulator, "crashed")
    before = status(health, vm.id)["properties"]["occuredTime"]
    emulator.add_guest_fault("crashed", "host_failure")
    props = status(health, vm.id)["properties"]
    assert (props["availabilityState"], props["reasonType"], props["context"], props["category"]) == (
        "Unavailable", "Unplanned", "Platform Initiated", "Unplanned")
    assert "host server" in props["summary"] and props["occuredTime"] >= before
    clients.compute.virtual_machines.begin_restart(RG, "crashed").result()
    assert status(health, vm.id)["properties"]["availabilityState"] == "Unavailable"
    clients.compute.virtual_machines.begin_redeploy(RG, "crashed").result()
    assert status(health, vm.id)["properties"]["availabilityState"] == "Available"


@pytest.mark.parametrize(("verb", "title", "summary"), [
    ("begin_deallocate", "Stopped and deallocated", DEALLOCATED),
    ("begin_power_off", "Stopped",
     "This virtual machine is stopped as requested by an authorized user or process."),
])
def test_a_stopped_vm_is_unavailable_customer_initiated(
        emulator: EmulatorHandle, clients: SyncClients, health: ResourceHealthMgmtClient,
        verb: str, title: str, summary: str) -> None:
    vm = make_vm(clients, emulator, "resting")
    getattr(clients.compute.virtual_machines, verb)(RG, "resting").result()
    props = status(health, vm.id)["properties"]
    assert (props["availabilityState"], props["title"], props["summary"], props["context"]) == (
        "Unavailable", title, summary, "Customer Initiated")
    clients.compute.virtual_machines.begin_start(RG, "resting").result()
    assert status(health, vm.id)["properties"]["availabilityState"] == "Available"


def test_a_vm_being_created_is_unknown(
        emulator: EmulatorHandle, clients: SyncClients, health: ResourceHealthMgmtClient) -> None:
    emulator.add_fault("virtualMachines.put", name="newborn", status=0, delay_s=30, stage="operation")
    nic = make_nic(clients, emulator, "newborn-nic")
    clients.compute.virtual_machines.begin_create_or_update(RG, "newborn", vm_body("newborn", nic))
    vm_id = clients.compute.virtual_machines.get(RG, "newborn").id
    assert status(health, vm_id)["properties"]["availabilityState"] == "Unknown"


def test_a_missing_vm_is_404(emulator: EmulatorHandle, health: ResourceHealthMgmtClient) -> None:
    vm_id = f"/subscriptions/{emulator.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Compute/" \
            "virtualMachines/nobody"
    with pytest.raises(ResourceNotFoundError) as caught:
        health.availability_statuses.get_by_resource(vm_id)
    assert caught.value.error.code == "ResourceNotFound"


def test_forced_states_for_a_regional_outage(
        emulator: EmulatorHandle, clients: SyncClients, health: ResourceHealthMgmtClient) -> None:
    vms = [make_vm(clients, emulator, f"region-{i}") for i in range(3)]
    answer = emulator._call("POST", "/_emulator/resource-health",
                            {"names": ["region-0", "region-1"], "availability_state": "Unavailable"})
    assert [r["name"] for r in answer["value"]] == ["region-0", "region-1"]
    assert emulator._call("GET", "/_emulator/resource-health")["value"] == answer["value"]
    states = [status(health, vm.id)["properties"] for vm in vms]
    assert [(p["availabilityState"], p["context"]) for p in states] == [
        ("Unavailable", "Platform Initiated"), ("Unavailable", "Platform Initiated"),
        ("Available", "Platform Initiated")]
    emulator._call("POST", "/_emulator/resource-health",
                   {"name": "region-2", "resource_group": RG, "availability_state": "Degraded", "summary": "slow"})
    props = status(health, vms[2].id)["properties"]
    assert (props["availabilityState"], props["summary"]) == ("Degraded", "slow")
    emulator._call("DELETE", "/_emulator/resource-health")
    assert [status(health, vm.id)["properties"]["availabilityState"] for vm in vms] == ["Available"] * 3


@pytest.mark.parametrize(("body", "field"), [
    ({"availability_state": "Unavailable"}, "name"),
    ({"names": [], "availability_state": "Unavailable"}, "names"),
    ({"name": "x", "availability_state": "Broken"}, "availability_state"),
    ({"name": "x", "availability_state": "Unavailable", "context": 3}, "context"),
    ({"name": "x", "availability_state": "Unavailable", "why": "because"}, "why"),
])
def test_a_bad_forced_state_is_400_naming_the_field(emulator: EmulatorHandle, body: Any, field: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        emulator._call("POST", "/_emulator/resource-health", body)
    error = json.loads(caught.value.read())["error"]
    assert caught.value.code == 400 and error["code"] == "InvalidResourceHealth" and field in error["message"]
