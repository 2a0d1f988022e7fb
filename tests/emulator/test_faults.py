"""Every shape of fault rule: operation/name globs, status/code/message, times, probability, stage, delay."""

from __future__ import annotations

import json
import time
import urllib.error
from pathlib import Path

import pytest
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError

from tests.emulator.builders import RG, nic_body, vm_body
from tests.support.arm_http import arm
from tests.support.emulator import EmulatorHandle, EmulatorProcess
from tests.support.sdk import SyncClients


def get_vnet(clients: SyncClients) -> None:
    clients.network.virtual_networks.get(RG, "azmc-vnet")


def test_request_fault_returns_status_code_and_message(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.add_fault("virtualNetworks.get", status=503, code="ServerBusy", message="try later")
    with pytest.raises(HttpResponseError) as caught:
        get_vnet(clients)
    assert caught.value.status_code == 503
    assert caught.value.error.code == "ServerBusy" and caught.value.error.message == "try later"
    get_vnet(clients)  # times defaults to 1


def test_default_code_follows_status(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.add_fault("virtualNetworks.get", status=404)
    with pytest.raises(ResourceNotFoundError) as caught:
        get_vnet(clients)
    assert caught.value.error.code == "ResourceNotFound"


def test_times_counts_down_and_minus_one_never_runs_out(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.add_fault("virtualNetworks.get", times=2)
    outcomes = []
    for _ in range(3):
        try:
            get_vnet(clients)
            outcomes.append("ok")
        except HttpResponseError:
            outcomes.append("fail")
    assert outcomes == ["fail", "fail", "ok"]
    assert emulator.faults() == []
    fault_id = emulator.add_fault("virtualNetworks.get", times=-1)
    for _ in range(5):
        with pytest.raises(HttpResponseError):
            get_vnet(clients)
    assert [f["hits"] for f in emulator.faults()] == [5]
    emulator.remove_fault(fault_id)
    get_vnet(clients)


def test_name_and_operation_globs(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.add_fault("networkInterfaces.*", name="blocked-*", status=400, code="Denied", times=-1)
    clients.network.network_interfaces.begin_create_or_update(RG, "fine-nic", nic_body(emulator.subnet_id)).result()
    with pytest.raises(HttpResponseError) as caught:
        clients.network.network_interfaces.begin_create_or_update(RG, "blocked-1", nic_body(emulator.subnet_id))
    assert caught.value.error.code == "Denied"
    with pytest.raises(HttpResponseError):
        clients.network.network_interfaces.get(RG, "blocked-1")
    emulator.clear_faults()
    assert emulator.faults() == []


def test_probability(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.add_fault("virtualNetworks.get", probability=0.0, times=-1)
    for _ in range(20):
        get_vnet(clients)
    assert emulator.faults()[0]["hits"] == 0
    emulator.clear_faults()
    emulator.add_fault("virtualNetworks.get", probability=0.5, times=-1)
    failures = 0
    for _ in range(200):
        try:
            get_vnet(clients)
        except HttpResponseError:
            failures += 1
    assert 50 <= failures <= 150  # binomial(200, 0.5): outside this range with p < 1e-12


def test_operation_stage_fails_the_long_running_operation(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = clients.network.network_interfaces.begin_create_or_update(
        RG, "op-nic", nic_body(emulator.subnet_id)).result().id
    clients.compute.virtual_machines.begin_create_or_update(RG, "op", vm_body("op", nic_id)).result()
    emulator.add_fault("virtualMachines.delete", name="op", status=500, code="InternalExecutionError",
                       message="delete broke", stage="operation")
    poller = clients.compute.virtual_machines.begin_delete(RG, "op")  # the request itself is accepted
    with pytest.raises(HttpResponseError) as caught:
        poller.result()
    assert caught.value.error.code == "InternalExecutionError"
    assert clients.compute.virtual_machines.get(RG, "op").provisioning_state == "Failed"


def test_delay_slows_requests_and_operations(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.add_fault("virtualNetworks.get", status=0, delay_s=0.3)
    started = time.monotonic()
    get_vnet(clients)  # status 0: only slower, no error
    assert time.monotonic() - started >= 0.3
    emulator.add_fault("networkInterfaces.put", status=0, delay_s=0.4, stage="operation")
    started = time.monotonic()
    nic = clients.network.network_interfaces.begin_create_or_update(RG, "slow-nic", nic_body(emulator.subnet_id))
    assert nic.result().provisioning_state == "Succeeded"
    assert 0.4 <= time.monotonic() - started < 5


def test_invalid_rule_is_rejected(emulator: EmulatorHandle) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        emulator.add_fault("virtualNetworks.get", stage="sometime")
    assert caught.value.code == 400


def test_faults_file_loaded_at_start(tmp_path: Path) -> None:
    rules = [{"operation": "virtualNetworks.get", "status": 429, "code": "TooManyRequests", "times": -1}]
    path = tmp_path / "faults.json"
    path.write_text(json.dumps(rules))
    process = EmulatorProcess("--time-scale", "0", "--seed", "--faults", str(path))
    handle = process.start()
    try:
        vnet = (f"/subscriptions/{handle.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Network/"
                "virtualNetworks/azmc-vnet")
        assert arm(handle, "GET", vnet).error_code == "TooManyRequests"
        assert handle.faults()[0]["operation"] == "virtualNetworks.get"
        handle.reset()  # reset clears faults loaded from the file too
        assert arm(handle, "GET", vnet).status == 200
    finally:
        process.stop()
