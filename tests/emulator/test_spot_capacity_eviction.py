"""Spot capacity going with `"evict": true`: Azure takes the capacity back from the running Spot VMs it
matches (by their eviction policy), and new Spot VMs there are refused until it returns."""

from __future__ import annotations

import json
import urllib.error

import pytest
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError

from tests.emulator.builders import RG
from tests.emulator.steps import make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def power(clients: SyncClients, name: str) -> str:
    return str(clients.compute.virtual_machines.instance_view(RG, name).statuses[1].code)


def test_spot_capacity_gone_in_a_zone_evicts_the_spot_vms_there_and_refuses_new_ones(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    kept = make_vm(clients, emulator, "spot-z1", eviction_policy="Deallocate", zones=["1"])
    make_vm(clients, emulator, "spot-z1-delete", eviction_policy="Delete", zones=["1"])
    make_vm(clients, emulator, "spot-z2", eviction_policy="Deallocate", zones=["2"])
    make_vm(clients, emulator, "regular-z1", zones=["1"])
    answer = emulator._call("POST", "/_emulator/capacity", {"priority": "Spot", "zone": "1", "evict": True})
    assert sorted(vm_id.rsplit("/", 1)[1] for vm_id in answer["evicted"]) == ["spot-z1", "spot-z1-delete"]
    assert power(clients, "spot-z1") == "PowerState/deallocated"
    with pytest.raises(ResourceNotFoundError):
        clients.compute.virtual_machines.get(RG, "spot-z1-delete")
    assert power(clients, "spot-z2") == power(clients, "regular-z1") == "PowerState/running"
    with pytest.raises(HttpResponseError) as caught:  # no Spot capacity to start it again
        clients.compute.virtual_machines.begin_start(RG, "spot-z1")
    assert caught.value.status_code == 409 and caught.value.error.code == "SkuNotAvailable"
    emulator.restore_capacity(answer["id"])
    clients.compute.virtual_machines.begin_start(RG, "spot-z1").result()
    assert clients.compute.virtual_machines.get(RG, "spot-z1").vm_id == kept.vm_id


def test_without_evict_running_spot_vms_keep_running(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "spot", eviction_policy="Deallocate")
    emulator.make_unavailable(priority="Spot")
    assert power(clients, "spot") == "PowerState/running"


def test_evict_is_for_spot_only(emulator: EmulatorHandle) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        emulator._call("POST", "/_emulator/capacity", {"priority": "Regular", "evict": True})
    assert caught.value.code == 400 and json.loads(caught.value.read())["error"]["code"] == "InvalidCapacity"
