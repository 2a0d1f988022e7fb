"""The compute provider's policies under `--limits azure`, through the real compute SDK: each answer counts its
buckets down in `x-ms-ratelimit-remaining-resource`, an empty bucket answers 429 `OperationNotAllowed` naming
it with a `Retry-After`, and the bucket refills after that wait. Budgets are made small so a test takes
seconds (the period stays long enough that nothing refills mid-test)."""

from __future__ import annotations

import json

import pytest
from azure.core.exceptions import HttpResponseError

from tests.emulator.builders import RG, vm_body
from tests.emulator.limit_steps import Answers, azure_limits, throttled, wait_out
from tests.emulator.steps import make_nic, make_vm
from tests.support.arm_http import arm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients, sdk_clients

PERIOD = {"period_s": 6}


def remaining(header: str) -> dict[str, int]:
    """`Microsoft.Compute/PutVMResource;1,Microsoft.Compute/PutVM3Min;2` -> {"PutVMResource": 1, ...}."""
    return {name.removeprefix("Microsoft.Compute/"): int(count)
            for name, count in (entry.split(";") for entry in header.split(","))}


def test_put_vm_counts_per_vm_and_per_subscription(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nics = {name: make_nic(clients, emulator, f"{name}-nic") for name in ("lim1", "lim2", "lim3")}
    azure_limits(emulator, compute_PutVM_resource={"capacity": 2, "refill": 2, **PERIOD},
                 compute_PutVM_subscription={"capacity": 3, "refill": 3, **PERIOD})
    seen = Answers()
    vms = clients.compute.virtual_machines

    def put(name: str) -> None:
        vms.begin_create_or_update(RG, name, vm_body(name, nics[name]), raw_response_hook=seen).result()

    put("lim1")
    assert remaining(seen.header("PUT")) == {"PutVMResource": 1, "PutVM3Min": 2}
    put("lim1")  # an update is a PUT too
    assert remaining(seen.header("PUT")) == {"PutVMResource": 0, "PutVM3Min": 1}
    with pytest.raises(HttpResponseError) as caught:
        put("lim1")
    code, retry_after, details = throttled(caught.value)
    assert code == "OperationNotAllowed" and 1 <= retry_after <= 6
    assert caught.value.error.message == ("The server rejected the request because too many requests have been "
                                          "received for this subscription.")
    assert (details[0].code, details[0].target) == ("TooManyRequests", "PutVMResource")
    assert json.loads(details[0].message)["operationGroup"] == "PutVMResource"
    # Another VM has its own bucket, but the subscription's is now the one that empties.
    put("lim2")
    assert remaining(seen.header("PUT")) == {"PutVMResource": 1, "PutVM3Min": 0}
    with pytest.raises(HttpResponseError) as caught:
        put("lim3")
    code, retry_after, details = throttled(caught.value)
    assert details[0].target == "PutVM3Min" and remaining(seen.header("PUT"))["PutVM3Min"] == 0
    assert json.loads(details[0].message)["allowedRequestCount"] == 3
    wait_out(retry_after)
    put("lim3")
    assert remaining(seen.header("PUT")) == {"PutVMResource": 1, "PutVM3Min": 2}


def test_deallocate_and_delete_share_a_budget_apart_from_updates(emulator: EmulatorHandle,
                                                                 clients: SyncClients) -> None:
    make_vm(clients, emulator, "dvm")
    azure_limits(emulator, compute_DeleteVM_resource={"capacity": 2, "refill": 2, **PERIOD})
    seen = Answers()
    vms = clients.compute.virtual_machines
    vms.begin_deallocate(RG, "dvm", raw_response_hook=seen).result()
    assert remaining(seen.header("POST"))["DeleteVMResource"] == 1
    vms.begin_start(RG, "dvm", raw_response_hook=seen).result()
    assert remaining(seen.header("POST")) == {"UpdateVMResource": 11, "UpdateVM3Min": 1499}
    vms.begin_deallocate(RG, "dvm", raw_response_hook=seen).result()
    assert remaining(seen.header("POST"))["DeleteVMResource"] == 0
    with pytest.raises(HttpResponseError) as caught:
        vms.begin_delete(RG, "dvm", raw_response_hook=seen).result()
    code, retry_after, details = throttled(caught.value)
    assert (code, details[0].target) == ("OperationNotAllowed", "DeleteVMResource")
    assert remaining(seen.header("DELETE"))["DeleteVMResource"] == 0
    wait_out(retry_after)
    vms.begin_delete(RG, "dvm", raw_response_hook=seen).result()
    assert remaining(seen.header("DELETE"))["DeleteVMResource"] == 1
    assert emulator.resources("virtualMachines") == []


def test_gets_are_low_cost_per_vm_and_lists_high_cost(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "gvm")
    azure_limits(emulator, compute_LowCostGet_resource={"capacity": 3, "refill": 3, **PERIOD},
                 compute_HighCostGet_subscription={"capacity": 2, "refill": 2, **PERIOD})
    seen = Answers()
    vms = clients.compute.virtual_machines
    vms.get(RG, "gvm", raw_response_hook=seen)
    vms.instance_view(RG, "gvm", raw_response_hook=seen)  # the same policy
    assert remaining(seen.header("GET")) == {"LowCostGetResource": 1, "LowCostGet3Min": 23998}
    vms.get(RG, "gvm", raw_response_hook=seen)
    with pytest.raises(HttpResponseError) as caught:
        vms.get(RG, "gvm", raw_response_hook=seen)
    code, get_wait, details = throttled(caught.value)
    assert (code, details[0].target) == ("OperationNotAllowed", "LowCostGetResource")
    # Lists have only a subscription bucket.
    list(vms.list(RG, raw_response_hook=seen))
    assert remaining(seen.header("GET")) == {"HighCostGet3Min": 1}
    list(vms.list(RG, raw_response_hook=seen))
    with pytest.raises(HttpResponseError) as caught:
        list(vms.list(RG, raw_response_hook=seen))
    code, list_wait, details = throttled(caught.value)
    assert (code, details[0].target) == ("OperationNotAllowed", "HighCostGet3Min")
    wait_out(max(get_wait, list_wait))
    assert vms.get(RG, "gvm", raw_response_hook=seen).name == "gvm"
    assert remaining(seen.header("GET"))["LowCostGetResource"] == 2
    assert [vm.name for vm in vms.list(RG, raw_response_hook=seen)] == ["gvm"]
    assert remaining(seen.header("GET")) == {"HighCostGet3Min": 1}


def test_operation_polls_count_per_operation(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic = make_nic(clients, emulator, "ovm-nic")
    azure_limits(emulator, compute_GetOperation_resource={"capacity": 2, "refill": 2, **PERIOD})
    vm_path = (f"/subscriptions/{emulator.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Compute/"
               "virtualMachines/ovm")
    created = arm(emulator, "PUT", vm_path, vm_body("ovm", nic).as_dict())
    assert created.status == 201
    status_url = created.headers["azure-asyncoperation"]
    first, second, third = (arm(emulator, "GET", status_url) for _ in range(3))
    assert [remaining(a.headers["x-ms-ratelimit-remaining-resource"]) for a in (first, second)] == [
        {"GetOperationResource": 1, "GetOperation3Min": 14999}, {"GetOperationResource": 0, "GetOperation3Min": 14998}]
    assert third.status == 429 and third.error_code == "OperationNotAllowed"
    assert third.body["error"]["details"][0]["target"] == "GetOperationResource"
    wait_out(int(third.headers["retry-after"]))
    assert arm(emulator, "GET", status_url).status == 200


def test_the_sdk_waits_out_a_429_by_itself(emulator: EmulatorHandle, clients: SyncClients) -> None:
    """azure-core's RetryPolicy retries a 429 after its Retry-After: with retries on, the caller only sees
    the answer (azmc's activities turn retries off and leave them to Temporal)."""
    make_vm(clients, emulator, "rvm")
    azure_limits(emulator, compute_LowCostGet_resource={"capacity": 1, "refill": 1, "period_s": 2})
    retrying = sdk_clients(emulator, retry_total=3)
    seen = Answers()
    try:
        retrying.compute.virtual_machines.get(RG, "rvm", raw_response_hook=seen)
        assert retrying.compute.virtual_machines.get(RG, "rvm", raw_response_hook=seen).name == "rvm"
    finally:
        retrying.close()
    assert seen.statuses("GET") == [200, 429, 200]
    assert emulator.requests()["failed_by_operation"] == {"virtualMachines.get": 1}
