"""The resource SKUs API (`resource_skus.list`) through the real compute SDK: the emulator's sizes with Azure's
capability names, and the accelerated-networking refusal those capabilities imply."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError

from tests.emulator.builders import LOCATION, RG, nic_body, vm_body
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def test_skus_of_a_location_carry_azures_capabilities(clients: SyncClients) -> None:
    skus = {s.name: s for s in clients.compute.resource_skus.list(filter=f"location eq '{LOCATION}'")}
    d2 = skus["Standard_D2s_v5"]
    assert (d2.resource_type, d2.tier, d2.size, d2.family) == ("virtualMachines", "Standard", "D2s_v5",
                                                               "standardDSv5Family")
    assert d2.locations == [LOCATION]
    assert d2.location_info[0].location == LOCATION and d2.location_info[0].zones == ["1", "2", "3"]
    caps = {c.name: c.value for c in d2.capabilities}
    assert caps["vCPUs"] == "2" and caps["MemoryGB"] == "8"
    assert caps["AcceleratedNetworkingEnabled"] == "True"
    for name in ("CachedDiskBytes", "MaxResourceVolumeMB", "EphemeralOSDiskSupported", "EncryptionAtHostSupported"):
        assert name in caps
    assert {c.name: c.value for c in skus["Standard_B2s"].capabilities}["AcceleratedNetworkingEnabled"] == "False"
    eastus = list(clients.compute.resource_skus.list(filter="location eq 'eastus'"))
    assert eastus and all(s.locations == ["eastus"] for s in eastus)


def test_a_filter_other_than_the_location_is_refused(clients: SyncClients) -> None:
    with pytest.raises(HttpResponseError) as refused:
        list(clients.compute.resource_skus.list(filter="name eq 'Standard_B2s'"))
    assert refused.value.error.code == "InvalidFilterInQueryString"


def _accelerated_nic(clients: SyncClients, emulator: EmulatorHandle, name: str) -> str:
    body = nic_body(emulator.subnet_id)
    body.enable_accelerated_networking = True
    return clients.network.network_interfaces.begin_create_or_update(RG, name, body).result().id


def test_accelerated_networking_on_a_size_without_it_is_refused_as_azure_does(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = _accelerated_nic(clients, emulator, "an-nic")
    with pytest.raises(HttpResponseError) as refused:
        clients.compute.virtual_machines.begin_create_or_update(
            RG, "small", vm_body("small", nic_id, data_disks=0, vm_size="Standard_B2s")).result()
    assert refused.value.status_code == 400
    assert refused.value.error.code == "VMSizeIsNotPermittedToEnableAcceleratedNetworking"
    assert "Standard_B2s" in refused.value.error.message
    vm = clients.compute.virtual_machines.begin_create_or_update(
        RG, "fast", vm_body("fast", nic_id, data_disks=0, vm_size="Standard_D2s_v5")).result()
    assert vm.provisioning_state == "Succeeded"
    assert clients.network.network_interfaces.get(RG, "an-nic").enable_accelerated_networking is True
