"""vCPU quotas (`/_emulator/quota`): Azure's synchronous 409 OperationNotAllowed, counted from the VMs that
hold an allocation, through the real compute SDK."""

from __future__ import annotations

import json
import urllib.error

import pytest
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError

from emulator.compute.allocation import vm_sizes
from tests.emulator.builders import LOCATION, RG, vm_body
from tests.emulator.steps import make_nic
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def put(clients: SyncClients, emulator: EmulatorHandle, name: str, **body: object) -> None:
    nic_id = make_nic(clients, emulator, f"{name}-nic")
    clients.compute.virtual_machines.begin_create_or_update(RG, name, vm_body(name, nic_id, **body)).result()


def refused(clients: SyncClients, emulator: EmulatorHandle, name: str, **body: object) -> HttpResponseError:
    with pytest.raises(HttpResponseError) as caught:
        put(clients, emulator, name, **body)
    assert caught.value.status_code == 409
    with pytest.raises(ResourceNotFoundError):  # nothing was created
        clients.compute.virtual_machines.get(RG, name)
    return caught.value


def test_a_family_quota_counts_the_cores_of_the_family_and_refuses_the_vm_beyond_it(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    entry = emulator.set_quota(4, family="standardDSv5Family")
    put(clients, emulator, "one")  # Standard_D2s_v5: 2 vCPUs
    put(clients, emulator, "two", zones=["2"])
    put(clients, emulator, "other-family", vm_size="Standard_D8s_v3")
    error = refused(clients, emulator, "three")
    assert error.error.code == "OperationNotAllowed"
    assert error.error.message.startswith(
        "Operation could not be completed as it results in exceeding approved standardDSv5Family Cores quota. "
        f"Additional details - Deployment Model: Resource Manager, Location: {LOCATION}, Current Limit: 4, "
        "Current Usage: 4, Additional Required: 2, (Minimum) New Limit Required: 6. Submit a request for Quota "
        "increase at ")
    assert [(q["id"], q["hits"]) for q in emulator.quotas()] == [(entry, 1)]
    emulator.clear_quota(entry)
    put(clients, emulator, "three")


def test_a_deallocated_vm_frees_its_cores_and_needs_them_again_to_start(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.set_quota(4, vm_size="Standard_D4s_v5")  # the family of that size: standardDSv5Family
    put(clients, emulator, "big", vm_size="Standard_D4s_v5")
    assert "Additional Required: 2" in refused(clients, emulator, "small").error.message
    clients.compute.virtual_machines.begin_deallocate(RG, "big").result()
    put(clients, emulator, "small")
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_start(RG, "big")  # refused at once, not in the operation
    assert caught.value.status_code == 409 and caught.value.error.code == "OperationNotAllowed"
    assert "Current Usage: 2, Additional Required: 4" in caught.value.error.message
    assert clients.compute.virtual_machines.instance_view(RG, "big").statuses[1].code == "PowerState/deallocated"


def test_spot_counts_against_low_priority_cores_and_regular_against_the_regional_total(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.set_quota(2, family=vm_sizes.TOTAL_REGIONAL)
    emulator.set_quota(0, family=vm_sizes.LOW_PRIORITY)
    put(clients, emulator, "regular")
    total = refused(clients, emulator, "regular-2", vm_size="Standard_E2s_v5")
    assert "exceeding approved Total Regional Cores quota" in total.error.message
    spot = refused(clients, emulator, "spot", eviction_policy="Deallocate")
    assert "exceeding approved LowPriorityCores quota" in spot.error.message
    assert "Current Limit: 0, Current Usage: 0, Additional Required: 2" in spot.error.message


def test_an_unknown_size_counts_as_two_cores_and_quota_exceeded_has_its_own_wording(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.set_quota(3, vm_size="Standard_Q64s_v9", code="QuotaExceeded")
    put(clients, emulator, "odd", vm_size="Standard_Q64s_v9")
    error = refused(clients, emulator, "odd-2", vm_size="Standard_Q64s_v9")
    assert (error.error.code, error.error.message) == (
        "QuotaExceeded", "Operation results in exceeding quota limits of Core. Maximum allowed: 3, "
        "Current in use: 2, Additional requested: 2.")


def test_a_quota_for_another_location_does_not_apply(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.set_quota(0, family="cores", location="eastus")
    put(clients, emulator, "here")
    emulator.set_quota(0, family="cores", location="West Europe")  # ARM's display name for westeurope
    assert "Current Limit: 0, Current Usage: 2" in refused(clients, emulator, "there").error.message


@pytest.mark.parametrize(("size", "family", "cores"), [
    ("Standard_D2s_v5", "standardDSv5Family", 2), ("Standard_D8s_v3", "standardDSv3Family", 8),
    ("Standard_D4as_v5", "standardDASv5Family", 4), ("Standard_B2s", "standardBSFamily", 2),
    ("Standard_DS3_v2", "standardDSv2Family", vm_sizes.UNKNOWN_SIZE_VCPUS),
])
def test_sizes_map_to_azures_quota_family_and_vcpus(size: str, family: str, cores: int) -> None:
    assert (vm_sizes.family(size), vm_sizes.vcpus(size)) == (family, cores)


@pytest.mark.parametrize("entry", [{"limit_cores": 4}, {"family": "cores", "limit_cores": -1},
                                   {"family": "cores", "limit_cores": 4, "code": "Conflict"},
                                   {"family": "standardESv5Family", "vm_size": "Standard_D2s_v5", "limit_cores": 4}])
def test_a_malformed_quota_entry_is_refused(emulator: EmulatorHandle, entry: dict[str, object]) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        emulator._call("POST", "/_emulator/quota", entry)
    assert caught.value.code == 400 and json.loads(caught.value.read())["error"]["code"] == "InvalidQuota"
    assert emulator.quotas() == []
