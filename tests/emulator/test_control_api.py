"""The `/_emulator` control API: resources, request counts, settings, reset, health, seed."""

from __future__ import annotations

import urllib.error

import pytest

from tests.emulator.builders import RG, vm_body
from tests.emulator.steps import make_nic
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import sdk_clients


def test_seed_exists(emulator: EmulatorHandle) -> None:
    seeded = {(r["type"], r["name"]) for r in emulator.resources()}
    assert seeded == {
        ("Microsoft.Resources/resourceGroups", "azmc-demo"),
        ("Microsoft.Network/virtualNetworks", "azmc-vnet"),
        ("Microsoft.Network/virtualNetworks/subnets", "default"),
        ("Microsoft.Network/networkSecurityGroups", "azmc-nsg"),
        ("Microsoft.Network/applicationSecurityGroups", "azmc-asg"),
        ("Microsoft.Network/loadBalancers", "azmc-lb"),
    }
    assert emulator.subnet_id.endswith("/virtualNetworks/azmc-vnet/subnets/default")


def test_resources_show_attachments_and_requests_are_counted(emulator: EmulatorHandle) -> None:
    clients = sdk_clients(emulator)
    nic_id = make_nic(clients, emulator, "c-nic")
    vm = clients.compute.virtual_machines.begin_create_or_update(RG, "c", vm_body("c", nic_id)).result()
    clients.close()
    nic_view = emulator.resources("networkinterfaces")[0]
    assert nic_view["attachments"] == {"virtualMachine": vm.id}
    assert nic_view["provisioningState"] == "Succeeded" and nic_view["tags"] == {"azmc-machine": "test"}
    vm_view = emulator.resources("virtualMachines")[0]
    assert vm_view["attachments"]["networkInterfaces"] == [nic_id]
    assert len(vm_view["attachments"]["disks"]) == 2
    counts = emulator.requests()
    assert counts["by_operation"]["networkInterfaces.put"] == 1
    assert counts["by_operation"]["virtualMachines.put"] == 1
    assert counts["total"] == sum(counts["by_operation"].values())


def test_settings_change_live_and_reset_restores_everything(emulator: EmulatorHandle) -> None:
    changed = emulator.settings(time_scale=0.5, throttling=True, index_lag_s=3, latency_profile="realistic",
                                boot_seconds=30, limits="azure",
                                limits_overrides={"compute.PutVM.subscription": {"capacity": 3}})
    assert changed["time_scale"] == 0.5 and changed["latency_profile"] == "realistic" and changed["boot_seconds"] == 30
    with pytest.raises(urllib.error.HTTPError):
        emulator.settings(latency_profile="glacial")
    for wrong in ({"limits": "aws"}, {"limits_overrides": {"compute.Nope.subscription": {"capacity": 1}}},
                  {"limits_overrides": {"arm.reads": {"capacity": 0}}}, {"limits_overrides": {"arm.reads": 5}}):
        with pytest.raises(urllib.error.HTTPError):
            emulator.settings(**wrong)
    emulator.add_fault("virtualMachines.put")
    emulator.make_unavailable(zone="1")
    emulator.set_quota(4, family="cores")
    clients = sdk_clients(emulator)
    clients.network.virtual_networks.get(RG, "azmc-vnet")
    clients.close()
    emulator.reset()
    assert emulator.settings() == {"time_scale": 0.0, "throttling": False, "limits": "none", "limits_overrides": {},
                                   "index_lag_s": 0.0,
                                   "latency_profile": "instant", "page_size": 1000, "boot_seconds": 0.0}
    assert emulator.faults() == [] and emulator.capacity() == [] and emulator.quotas() == []
    assert emulator.requests() == {"total": 0, "by_operation": {}, "failed_by_operation": {},
                                   "throttled_by_operation": {}, "vm_deletions": []}
    assert len(emulator.resources()) == 6  # the seed (test_seed_exists)
    assert emulator.healthy()
