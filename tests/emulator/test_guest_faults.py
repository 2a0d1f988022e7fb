"""Guest faults (`/_emulator/guest-faults`): what they do to the VM agent, which VM they hit, and how they end.
Repairs (restart, redeploy) that clear them are in test_restart_redeploy.py."""

from __future__ import annotations

import json
import urllib.error
from typing import Any

import pytest

from tests.emulator.builders import RG
from tests.emulator.steps import make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

UNRESPONSIVE = ("Not Ready", "VM Agent is unresponsive.")
BOOTING = ("Not Ready", "VM status blob is found but not yet populated.")
READY = ("Ready", "GuestAgent is running and accepting new configurations.")


def agent(clients: SyncClients, name: str) -> tuple[str | None, str | None]:
    status = clients.compute.virtual_machines.get(RG, name, expand="instanceView").instance_view.vm_agent.statuses[0]
    return status.display_status, status.message


def refused(emulator: EmulatorHandle, method: str, path: str, body: Any = None) -> tuple[int, dict[str, Any]]:
    with pytest.raises(urllib.error.HTTPError) as caught:
        emulator._call(method, path, body)
    raw = caught.value.read()
    return caught.value.code, json.loads(raw)["error"] if raw else {}


@pytest.mark.parametrize(("fault", "shown"), [("hang", UNRESPONSIVE), ("kernel_panic", UNRESPONSIVE),
                                              ("host_failure", UNRESPONSIVE), ("boot_failure", BOOTING)])
def test_a_fault_makes_the_agent_not_ready_until_deleted(
        emulator: EmulatorHandle, clients: SyncClients, fault: str, shown: tuple[str, str]) -> None:
    make_vm(clients, emulator, "sick")
    record = emulator.add_guest_fault("sick", fault)
    assert set(record) == {"id", "name", "resource_group", "fault", "persistent", "created"}
    assert (record["name"], record["resource_group"], record["fault"]) == ("sick", None, fault)
    assert emulator.guest_faults() == [record]
    assert agent(clients, "sick") == shown
    emulator.clear_guest_faults(record["id"])
    assert emulator.guest_faults() == [] and agent(clients, "sick") == READY


def test_a_fault_for_a_vm_not_yet_created_hits_the_next_one_of_that_name(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.add_guest_fault("later", "boot_failure", resource_group=RG)
    emulator.add_guest_fault("later", "hang", resource_group="another-group")  # aimed elsewhere
    make_vm(clients, emulator, "later")
    assert agent(clients, "later") == BOOTING
    emulator.settings(time_scale=0)  # every boot over, still never Ready
    assert agent(clients, "later") == BOOTING


def test_a_fault_ends_with_the_vm_it_hit(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "doomed")
    emulator.add_guest_fault("doomed", "hang")
    waiting = emulator.add_guest_fault("unborn", "hang")
    clients.compute.virtual_machines.begin_delete(RG, "doomed").result()
    assert emulator.guest_faults() == [waiting]
    # A VM created again under the same name is healthy.
    make_vm(clients, emulator, "doomed")
    assert agent(clients, "doomed") == READY


def test_delete_clears_all_and_an_unknown_id_is_404(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "twice")
    emulator.add_guest_fault("twice", "hang")
    emulator.add_guest_fault("twice", "kernel_panic")
    emulator.clear_guest_faults()
    assert emulator.guest_faults() == [] and agent(clients, "twice") == READY
    assert refused(emulator, "DELETE", "/_emulator/guest-faults/guest-fault-999")[0] == 404


@pytest.mark.parametrize(("body", "field"), [
    ({"fault": "hang"}, "name"),
    ({"name": "", "fault": "hang"}, "name"),
    ({"name": "vm", "fault": "melted"}, "fault"),
    ({"name": "vm"}, "fault"),
    ({"name": "vm", "fault": "hang", "resource_group": 7}, "resource_group"),
    ({"name": "vm", "fault": "hang", "when": "now"}, "when"),
    ({"name": "vm", "fault": "hang", "persistent": "yes"}, "persistent"),
    (["not", "an", "object"], "body"),
])
def test_a_bad_body_is_400_naming_the_field(emulator: EmulatorHandle, body: Any, field: str) -> None:
    status, error = refused(emulator, "POST", "/_emulator/guest-faults", body)
    assert status == 400 and error["code"] == "InvalidGuestFault" and field in error["message"]
    assert emulator.guest_faults() == []


def test_reset_forgets_guest_faults(emulator: EmulatorHandle) -> None:
    emulator.add_guest_fault("anyone", "hang")
    emulator.reset()
    assert emulator.guest_faults() == []
