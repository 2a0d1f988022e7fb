"""The compute usages API (`usage.list`): each vCPU quota with what the quota check counts and the limit the
control API sets, through the real compute SDK."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError

from emulator.compute.allocation import vm_sizes
from emulator.compute.allocation.usages import DEFAULT_LIMIT
from tests.emulator.builders import LOCATION, RG
from tests.emulator.test_quota_limits import put
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def listed(clients: SyncClients, location: str = LOCATION) -> dict[str, tuple[int, int, str]]:
    """name -> (currentValue, limit, localizedValue), as the SDK reads them."""
    found = {}
    for usage in clients.compute.usage.list(location):
        assert usage.unit == "Count"
        found[usage.name.value] = (usage.current_value, usage.limit, usage.name.localized_value)
    return found


def test_usages_count_the_allocated_vcpus_per_family_and_show_the_quota_set(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    assert listed(clients) == {"cores": (0, DEFAULT_LIMIT, "Total Regional vCPUs"),
                               "lowPriorityCores": (0, DEFAULT_LIMIT, "Total Regional Low-priority vCPUs")}
    emulator.set_quota(8, family="standardDSv5Family")
    emulator.set_quota(6, family="standardDSv5Family", location=LOCATION)  # the tightest entry is the limit
    emulator.set_quota(20, family=vm_sizes.TOTAL_REGIONAL, location="eastus")  # another location's
    put(clients, emulator, "one")  # Standard_D2s_v5: 2 vCPUs
    put(clients, emulator, "two", vm_size="Standard_D4s_v5")
    put(clients, emulator, "v3", vm_size="Standard_D8s_v3")
    put(clients, emulator, "spot", eviction_policy="Deallocate")
    assert listed(clients) == {
        "cores": (14, DEFAULT_LIMIT, "Total Regional vCPUs"),
        "standardDSv3Family": (8, DEFAULT_LIMIT, "Standard DSv3 Family vCPUs"),
        "standardDSv5Family": (6, 6, "Standard DSv5 Family vCPUs"),
        "lowPriorityCores": (2, DEFAULT_LIMIT, "Total Regional Low-priority vCPUs")}
    assert list(listed(clients)) == ["cores", "standardDSv3Family", "standardDSv5Family", "lowPriorityCores"]
    assert listed(clients, "eastus")["cores"] == (0, 20, "Total Regional vCPUs")


def test_the_listed_usage_is_what_the_quota_refusal_counts(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.set_quota(4, family="standardDSv5Family")
    put(clients, emulator, "big", vm_size="Standard_D4s_v5")
    assert listed(clients)["standardDSv5Family"][:2] == (4, 4)
    with pytest.raises(HttpResponseError) as refused:
        put(clients, emulator, "refused")
    assert "Current Limit: 4, Current Usage: 4" in refused.value.error.message
    clients.compute.virtual_machines.begin_deallocate(RG, "big").result()  # a deallocated VM holds no quota
    assert listed(clients)["standardDSv5Family"][:2] == (0, 4)
    put(clients, emulator, "fits")
    assert listed(clients)["standardDSv5Family"][:2] == (2, 4)
