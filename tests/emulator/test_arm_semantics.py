"""ARM protocol rules: 404 shapes, 204 on missing deletes, 409 while busy, LRO headers, latency, 401."""

from __future__ import annotations

import time

import pytest
from azure.core.exceptions import ClientAuthenticationError, ResourceExistsError, ResourceNotFoundError

from tests.emulator.builders import LOCATION, RG, nic_body, vm_body
from tests.support.arm_http import arm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients, sdk_clients


def nic_path(handle: EmulatorHandle, name: str, rg: str = RG) -> str:
    return (f"/subscriptions/{handle.subscription_id}/resourceGroups/{rg}/providers/Microsoft.Network/"
            f"networkInterfaces/{name}")


def test_missing_resource_and_group_are_404(emulator: EmulatorHandle, clients: SyncClients) -> None:
    with pytest.raises(ResourceNotFoundError) as caught:
        clients.compute.virtual_machines.get(RG, "ghost")
    assert caught.value.error.code == "ResourceNotFound"
    assert "Microsoft.Compute/virtualMachines/ghost" in caught.value.error.message
    with pytest.raises(ResourceNotFoundError) as caught:
        clients.network.network_interfaces.get("no-such-rg", "ghost")
    assert caught.value.error.code == "ResourceGroupNotFound"
    answer = arm(emulator, "GET", nic_path(emulator, "ghost"))
    assert answer.status == 404
    assert set(answer.body["error"]) >= {"code", "message", "details"}


def test_deleting_a_missing_resource_is_204(emulator: EmulatorHandle, clients: SyncClients) -> None:
    assert arm(emulator, "DELETE", nic_path(emulator, "ghost")).status == 204
    clients.compute.virtual_machines.begin_delete(RG, "ghost").result()
    clients.compute.disks.begin_delete(RG, "ghost").result()
    clients.network.network_interfaces.begin_delete(RG, "ghost").result()


def test_any_api_version_and_path_case_are_accepted(emulator: EmulatorHandle) -> None:
    arm(emulator, "PUT", nic_path(emulator, "case-nic"), nic_body(emulator.subnet_id).as_dict())
    upper = nic_path(emulator, "CASE-NIC").replace("resourceGroups", "RESOURCEGROUPS").replace(
        "Microsoft.Network", "microsoft.network")
    answer = arm(emulator, "GET", upper, api_version="1999-01-01")
    assert answer.status == 200 and answer.body["name"] == "case-nic"


def test_long_running_put_points_at_operation_endpoints(emulator: EmulatorHandle) -> None:
    emulator.settings(latency_profile="realistic", time_scale=0.05)  # NIC PUT takes 2 s * 0.05
    created = arm(emulator, "PUT", nic_path(emulator, "lro-nic"), nic_body(emulator.subnet_id).as_dict())
    assert created.status == 201
    # The network RP's answer: the NIC provisioned at once, the operation only confirming it later.
    assert created.body["properties"]["provisioningState"] == "Succeeded"
    assert [c["properties"]["provisioningState"] for c in created.body["properties"]["ipConfigurations"]] == [
        "Succeeded"]
    headers = created.headers
    assert "azure-asyncoperation" in headers and "location" in headers
    assert 1 <= int(headers["retry-after-ms"]) <= 500
    status = arm(emulator, "GET", headers["azure-asyncoperation"])
    assert status.status == 200 and status.body["status"] == "InProgress"
    assert arm(emulator, "GET", headers["location"]).status == 202
    time.sleep(0.15)
    status = arm(emulator, "GET", headers["azure-asyncoperation"])
    assert status.body["status"] == "Succeeded" and "endTime" in status.body
    assert arm(emulator, "GET", nic_path(emulator, "lro-nic")).body["properties"]["provisioningState"] == "Succeeded"


def test_failed_operation_reports_an_error_object(emulator: EmulatorHandle) -> None:
    emulator.add_fault("networkInterfaces.put", status=500, code="InternalError", message="boom", stage="operation")
    created = arm(emulator, "PUT", nic_path(emulator, "bad-nic"), nic_body(emulator.subnet_id).as_dict())
    assert created.status == 201
    time.sleep(0.05)
    status = arm(emulator, "GET", created.headers["azure-asyncoperation"])
    assert status.body["status"] == "Failed"
    assert status.body["error"]["code"] == "InternalError" and status.body["error"]["message"] == "boom"
    assert arm(emulator, "GET", nic_path(emulator, "bad-nic")).body["properties"]["provisioningState"] == "Failed"


def test_conflict_while_another_operation_runs(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.settings(latency_profile="realistic", time_scale=0.02)  # VM create: 45 s * 0.02 = 0.9 s
    nic_id = clients.network.network_interfaces.begin_create_or_update(
        RG, "busy-nic", nic_body(emulator.subnet_id)).result().id
    poller = clients.compute.virtual_machines.begin_create_or_update(RG, "busy", vm_body("busy", nic_id))
    with pytest.raises(ResourceExistsError) as caught:
        clients.compute.virtual_machines.begin_delete(RG, "busy")
    assert caught.value.status_code == 409 and caught.value.error.code == "AnotherOperationInProgress"
    assert clients.compute.virtual_machines.get(RG, "busy").provisioning_state == "Creating"
    assert poller.result().provisioning_state == "Succeeded"
    clients.compute.virtual_machines.begin_delete(RG, "busy").result()


def test_realistic_latency_is_scaled(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.settings(latency_profile="realistic", time_scale=0.02)
    started = time.monotonic()
    nic_id = clients.network.network_interfaces.begin_create_or_update(
        RG, "lat-nic", nic_body(emulator.subnet_id)).result().id
    nic_s = time.monotonic() - started
    started = time.monotonic()
    clients.compute.virtual_machines.begin_create_or_update(RG, "lat", vm_body("lat", nic_id)).result()
    vm_s = time.monotonic() - started
    assert nic_s < 0.5  # 2 s * 0.02 = 0.04 s
    assert 0.85 <= vm_s < 5  # 45 s * 0.02 = 0.9 s


def test_requests_without_bearer_token_are_401(emulator: EmulatorHandle) -> None:
    answer = arm(emulator, "GET", nic_path(emulator, "x"), token=None)
    assert answer.status == 401 and answer.error_code == "AuthenticationFailed"
    assert arm(emulator, "GET", nic_path(emulator, "x"), token="").status == 401
    empty = sdk_clients(emulator, token="")
    with pytest.raises(ClientAuthenticationError):
        empty.network.network_interfaces.get(RG, "x")
    empty.close()


def test_resource_group_must_exist_for_create(emulator: EmulatorHandle, clients: SyncClients) -> None:
    body = nic_body(emulator.subnet_id)
    with pytest.raises(ResourceNotFoundError) as caught:
        clients.network.network_interfaces.begin_create_or_update("missing-rg", "n", body)
    assert caught.value.error.code == "ResourceGroupNotFound"
    assert LOCATION == body.location
