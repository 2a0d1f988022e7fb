"""The subscription's VM list with `statusOnly=true` (VirtualMachines_ListAll), through the real azure-mgmt-compute
client: every VM's run-time status and nothing of its model, paged with nextLink as every ARM list."""

from __future__ import annotations

from tests.emulator.builders import RG
from tests.emulator.steps import make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def _statuses(clients: SyncClients) -> dict[str, list[str]]:
    return {str(vm.name): [s.code for s in vm.instance_view.statuses]
            for vm in clients.compute.virtual_machines.list_all(status_only="true")}


def test_status_only_shows_provisioning_and_power_of_every_vm_and_none_of_its_model(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "s1")
    make_vm(clients, emulator, "s2")
    clients.compute.virtual_machines.begin_power_off(RG, "s2").result()
    listed = {str(vm.name): vm for vm in clients.compute.virtual_machines.list_all(status_only="true")}
    assert _statuses(clients) == {"s1": ["ProvisioningState/succeeded", "PowerState/running"],
                                  "s2": ["ProvisioningState/succeeded", "PowerState/stopped"]}
    one = listed["s1"]
    assert one.provisioning_state == "Succeeded" and one.vm_id and one.location
    # The run-time status only: no tags, no profiles, no VM agent (a GET with instanceView is needed for those).
    assert one.tags is None and one.storage_profile is None and one.network_profile is None
    assert one.instance_view.vm_agent is None


def test_without_status_only_the_list_shows_the_models_and_no_instance_view(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "m1")
    (vm,) = clients.compute.virtual_machines.list_all()
    assert vm.storage_profile is not None and vm.instance_view is None


def test_a_long_status_list_is_paged_with_next_links(emulator: EmulatorHandle, clients: SyncClients) -> None:
    for name in ("p1", "p2", "p3"):
        make_vm(clients, emulator, name, data_disks=0)
    emulator.settings(page_size=2)
    before = emulator.requests()["by_operation"].get("virtualMachines.list", 0)
    assert sorted(_statuses(clients)) == ["p1", "p2", "p3"]
    assert emulator.requests()["by_operation"]["virtualMachines.list"] - before == 2  # two pages, two reads
