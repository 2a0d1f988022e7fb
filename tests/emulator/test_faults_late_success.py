"""A VM create Azure reports Failed that finishes anyway (fault `late_success_s`), through the real SDK."""

from __future__ import annotations

import time
import urllib.error

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute import models as cm
from azure.mgmt.resourcegraph.models import QueryRequest

from tests.emulator.builders import RG, vm_body
from tests.emulator.steps import make_nic
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def create_reported_failed(clients: SyncClients, emulator: EmulatorHandle, name: str) -> HttpResponseError:
    """Create VM `name`; its operation ends Failed. The SDK's error."""
    nic_id = make_nic(clients, emulator, f"{name}-nic")
    poller = clients.compute.virtual_machines.begin_create_or_update(RG, name, vm_body(name, nic_id))
    with pytest.raises(HttpResponseError) as caught:
        poller.result()
    return caught.value


def read(clients: SyncClients, name: str) -> cm.VirtualMachine:
    return clients.compute.virtual_machines.get(RG, name, expand="instanceView")


def codes(vm: cm.VirtualMachine) -> list[str]:
    return [status.code for status in vm.instance_view.statuses]


def test_create_reported_failed_is_finished_at_once(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.add_fault("virtualMachines.put", name="late", status=500, code="OSProvisioningTimedOut",
                       stage="operation", late_success_s=0)
    error = create_reported_failed(clients, emulator, "late")
    assert error.error.code == "OSProvisioningTimedOut"
    assert "may still finish provisioning" in error.error.message  # Azure's own wording
    assert emulator.requests()["failed_by_operation"].get("virtualMachines.put") == 1  # the operation did fail
    vm = read(clients, "late")
    assert vm.provisioning_state == "Succeeded"
    assert codes(vm) == ["ProvisioningState/succeeded", "PowerState/running"]
    assert vm.instance_view.vm_agent.statuses[0].display_status == "Ready"
    # Its NIC is the VM's, not reserved as a failed VM's: deleting the VM takes it along (deleteOption Delete).
    clients.compute.virtual_machines.begin_delete(RG, "late").result()
    assert emulator.resources("networkInterfaces") == []


def test_create_reported_failed_finishes_later_on_the_emulator_clock(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.settings(time_scale=0.01)  # 20 Azure seconds: 0.2 s of wall time
    emulator.add_fault("virtualMachines.put", name="slow", status=500, code="OSProvisioningTimedOut",
                       stage="operation", late_success_s=20)
    create_reported_failed(clients, emulator, "slow")
    vm = read(clients, "slow")
    assert vm.provisioning_state == "Failed"
    assert codes(vm) == ["ProvisioningState/failed/OSProvisioningTimedOut"]
    vm_id = vm.vm_id
    deadline = time.monotonic() + 20
    while (vm := read(clients, "slow")).provisioning_state != "Succeeded":
        assert time.monotonic() < deadline, "the VM never finished"
        time.sleep(0.05)
    assert vm.vm_id == vm_id  # the same VM, finished, not another
    assert codes(vm) == ["ProvisioningState/succeeded", "PowerState/running"]


def test_vm_deleted_before_its_late_success_stays_deleted(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.settings(time_scale=0.01)
    emulator.add_fault("virtualMachines.put", name="gone", status=500, code="OSProvisioningTimedOut",
                       stage="operation", late_success_s=20)
    create_reported_failed(clients, emulator, "gone")
    clients.compute.virtual_machines.begin_delete(RG, "gone").result()
    time.sleep(0.6)  # thrice the late success's wall time: it has run, and found no VM to finish
    assert emulator.resources("virtualMachines") == []
    # Nor did the graph hear of a VM coming back (a finished ghost would be indexed there).
    query = QueryRequest(subscriptions=[emulator.subscription_id],
                         query="resources | where type =~ 'microsoft.compute/virtualmachines'")
    assert clients.graph.resources(query).total_records == 0


@pytest.mark.parametrize("rule", [{"stage": "request"}, {"stage": "operation", "status": 0}])
def test_late_success_needs_a_failed_operation(emulator: EmulatorHandle, rule: dict[str, object]) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        emulator.add_fault("virtualMachines.put", late_success_s=0, **rule)
    assert caught.value.code == 400
