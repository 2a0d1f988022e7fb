"""restart and redeploy (`virtual_machines.begin_restart` / `begin_redeploy`): long-running operations that
reboot the guest, refused on a VM that is not running; redeploy moves the VM to a new host keeping its
identity, NICs and disks; each clears the guest faults Azure's would."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError

from tests.emulator.builders import RG
from tests.emulator.steps import make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

VERBS = ("begin_restart", "begin_redeploy")


def vm_view(emulator: EmulatorHandle, name: str) -> dict:
    return next(r for r in emulator.resources("virtualMachines") if r["name"] == name)


def agent(clients: SyncClients, name: str) -> str | None:
    return clients.compute.virtual_machines.get(RG, name, expand="instanceView").instance_view.vm_agent.statuses[
        0].display_status


def disks(clients: SyncClients) -> dict[str, str]:
    return {d.name: d.unique_id for d in clients.compute.disks.list_by_resource_group(RG)}


def test_redeploy_moves_to_a_new_host_keeping_identity_nics_and_disks(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    vm = make_vm(clients, emulator, "mover")
    before, disks_before = vm_view(emulator, "mover"), disks(clients)
    assert before["host"]
    clients.compute.virtual_machines.begin_redeploy(RG, "mover").result()
    after = clients.compute.virtual_machines.get(RG, "mover", expand="instanceView")
    assert (after.id, after.vm_id) == (vm.id, vm.vm_id)
    nics = [n.id for n in vm.network_profile.network_interfaces]
    assert [n.id for n in after.network_profile.network_interfaces] == nics
    assert disks(clients) == disks_before
    assert [s.code for s in after.instance_view.statuses] == ["ProvisioningState/succeeded", "PowerState/running"]
    moved = vm_view(emulator, "mover")
    assert moved["host"] != before["host"] and moved["attachments"] == before["attachments"]


def test_restart_keeps_the_host(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "stayer")
    host = vm_view(emulator, "stayer")["host"]
    clients.compute.virtual_machines.begin_restart(RG, "stayer").result()
    assert vm_view(emulator, "stayer")["host"] == host
    assert agent(clients, "stayer") == "Ready"


@pytest.mark.parametrize("verb", VERBS)
def test_both_boot_the_guest_again(emulator: EmulatorHandle, clients: SyncClients, verb: str) -> None:
    make_vm(clients, emulator, "reboot")
    emulator.settings(time_scale=1, boot_seconds=3600)
    getattr(clients.compute.virtual_machines, verb)(RG, "reboot").result()
    assert agent(clients, "reboot") == "Not Ready"
    emulator.settings(time_scale=0)
    assert agent(clients, "reboot") == "Ready"


@pytest.mark.parametrize("verb", VERBS)
def test_a_running_operation_locks_the_vm(emulator: EmulatorHandle, clients: SyncClients, verb: str) -> None:
    make_vm(clients, emulator, "busy")
    emulator.add_fault(f"virtualMachines.{verb.removeprefix('begin_')}", name="busy", status=0, delay_s=30,
                       stage="operation")
    getattr(clients.compute.virtual_machines, verb)(RG, "busy")
    vm = clients.compute.virtual_machines.get(RG, "busy", expand="instanceView")
    assert vm.provisioning_state == "Updating"
    assert [s.code for s in vm.instance_view.statuses] == ["ProvisioningState/updating", "PowerState/starting"]
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_restart(RG, "busy")
    assert caught.value.status_code == 409 and caught.value.error.code == "AnotherOperationInProgress"


@pytest.mark.parametrize("verb", VERBS)
def test_an_operation_stage_fault_fails_it(emulator: EmulatorHandle, clients: SyncClients, verb: str) -> None:
    make_vm(clients, emulator, "flaky")
    host = vm_view(emulator, "flaky")["host"]
    emulator.add_fault(f"virtualMachines.{verb.removeprefix('begin_')}", name="flaky", status=500,
                       code="InternalExecutionError", message="An internal execution error occurred.",
                       stage="operation")
    poller = getattr(clients.compute.virtual_machines, verb)(RG, "flaky")
    with pytest.raises(HttpResponseError) as caught:
        poller.result()
    assert caught.value.error.code == "InternalExecutionError"
    vm = clients.compute.virtual_machines.get(RG, "flaky", expand="instanceView")
    assert vm.provisioning_state == "Failed"
    assert [s.code for s in vm.instance_view.statuses] == \
        ["ProvisioningState/failed/InternalExecutionError", "PowerState/running"]
    assert vm_view(emulator, "flaky")["host"] == host
    assert emulator.requests()["failed_by_operation"] == {f"virtualMachines.{verb.removeprefix('begin_')}": 1}


@pytest.mark.parametrize("verb", VERBS)
def test_a_request_stage_fault_answers_at_once(emulator: EmulatorHandle, clients: SyncClients, verb: str) -> None:
    make_vm(clients, emulator, "blocked")
    emulator.add_fault(f"virtualMachines.{verb.removeprefix('begin_')}", name="blocked", status=429,
                       code="TooManyRequests")
    with pytest.raises(HttpResponseError) as caught:
        getattr(clients.compute.virtual_machines, verb)(RG, "blocked")
    assert caught.value.status_code == 429


@pytest.mark.parametrize("stop", ["begin_power_off", "begin_deallocate"])
@pytest.mark.parametrize("verb", VERBS)
def test_refused_on_a_vm_that_is_not_running(
        emulator: EmulatorHandle, clients: SyncClients, verb: str, stop: str) -> None:
    make_vm(clients, emulator, "off")
    getattr(clients.compute.virtual_machines, stop)(RG, "off").result()
    with pytest.raises(HttpResponseError) as caught:
        getattr(clients.compute.virtual_machines, verb)(RG, "off")
    assert caught.value.status_code == 409 and caught.value.error.code == "OperationNotAllowed"
    assert caught.value.error.message == "The operation requires the VM to be running (or set to run)."


@pytest.mark.parametrize("verb", VERBS)
def test_a_missing_vm_is_404(emulator: EmulatorHandle, clients: SyncClients, verb: str) -> None:
    with pytest.raises(HttpResponseError) as caught:
        getattr(clients.compute.virtual_machines, verb)(RG, "ghost")
    assert caught.value.status_code == 404 and caught.value.error.code == "ResourceNotFound"


@pytest.mark.parametrize(("fault", "verb", "cleared"), [
    ("kernel_panic", "begin_restart", True),
    ("kernel_panic", "begin_redeploy", True),
    ("host_failure", "begin_restart", False),
    ("host_failure", "begin_redeploy", True),
    ("hang", "begin_restart", True),
    ("hang", "begin_redeploy", True),
    ("boot_failure", "begin_restart", False),
    ("boot_failure", "begin_redeploy", False),
])
def test_repairs_clear_the_faults_azure_would(
        emulator: EmulatorHandle, clients: SyncClients, fault: str, verb: str, cleared: bool) -> None:
    make_vm(clients, emulator, "patient")
    emulator.add_guest_fault("patient", fault)
    getattr(clients.compute.virtual_machines, verb)(RG, "patient").result()
    assert agent(clients, "patient") == ("Ready" if cleared else "Not Ready")
    assert [f["fault"] for f in emulator.guest_faults()] == ([] if cleared else [fault])


@pytest.mark.parametrize("fault", ["hang", "kernel_panic", "host_failure"])
@pytest.mark.parametrize("verb", ["begin_restart", "begin_redeploy"])
def test_a_persistent_fault_survives_every_repair(
        emulator: EmulatorHandle, clients: SyncClients, fault: str, verb: str) -> None:
    make_vm(clients, emulator, "stubborn")
    emulator.add_guest_fault("stubborn", fault, persistent=True)
    getattr(clients.compute.virtual_machines, verb)(RG, "stubborn").result()
    assert agent(clients, "stubborn") == "Not Ready"
    assert [(f["fault"], f["persistent"]) for f in emulator.guest_faults()] == [(fault, True)]
