"""VM force deletion through the real SDK: `begin_delete(force_deletion=...)`, Azure's default when every disk
goes with the VM (api-version 2024-11-01 on), the shorter operation, and what is kept either way."""

from __future__ import annotations

from typing import Any

import pytest
from azure.core.exceptions import HttpResponseError

from tests.emulator.builders import RG
from tests.emulator.steps import make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def deletions(emulator: EmulatorHandle) -> list[dict[str, Any]]:
    return [{k: d[k] for k in ("forceDeletion", "forced", "azureSeconds")} for d in emulator.requests()["vm_deletions"]]


def test_force_deletion_true_is_forced_and_shorter_than_a_plain_delete(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    # The realistic profile's durations are recorded; time scale 0 still runs them at once.
    emulator.settings(latency_profile="realistic")
    make_vm(clients, emulator, "fast", delete_option="Detach")
    make_vm(clients, emulator, "slow", delete_option="Detach")
    clients.compute.virtual_machines.begin_delete(RG, "fast", force_deletion=True).result()
    clients.compute.virtual_machines.begin_delete(RG, "slow").result()
    forced, plain = deletions(emulator)
    assert forced == {"forceDeletion": "true", "forced": True, "azureSeconds": 15.0}
    assert plain == {"forceDeletion": None, "forced": False, "azureSeconds": 30.0}
    # Forced or not, the VM goes and what has deleteOption Detach stays, detached.
    assert emulator.resources("virtualMachines") == []
    assert {d["name"] for d in emulator.resources("disks")} == {
        "fast-os-disk", "fast-0-data-disk", "slow-os-disk", "slow-0-data-disk"}
    assert all(d["diskState"] == "Unattached" for d in emulator.resources("disks"))
    assert len(emulator.resources("networkInterfaces")) == 2


def test_unspecified_is_forced_when_every_disk_goes_and_false_is_never_forced(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "all-go", delete_option="Delete")
    make_vm(clients, emulator, "refused", delete_option="Delete")
    clients.compute.virtual_machines.begin_delete(RG, "all-go").result()
    clients.compute.virtual_machines.begin_delete(RG, "refused", force_deletion=False).result()
    assert [(d["forceDeletion"], d["forced"]) for d in deletions(emulator)] == [(None, True), ("false", False)]
    # deleteOption Delete everywhere: nothing of either VM is left.
    assert emulator.resources("disks") == [] and emulator.resources("networkInterfaces") == []


MAINTENANCE = ("Operation 'ForceDelete' is not allowed on resource 'held' since it manages updates using "
               "maintenance control.")


def test_a_refused_force_deletion_is_azures_409_and_the_same_delete_without_force_goes_through(
        emulator: EmulatorHandle, clients: SyncClients) -> None:
    # The emulator keeps no maintenance configurations: a fault stands for the VM's (emulator/README.md).
    emulator.add_fault("virtualMachines.forceDelete", name="held", status=409, code="OperationNotAllowed",
                       message=MAINTENANCE, times=-1)
    make_vm(clients, emulator, "held", delete_option="Delete")
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_delete(RG, "held", force_deletion=True)
    assert caught.value.status_code == 409 and caught.value.error.code == "OperationNotAllowed"
    assert caught.value.error.message == MAINTENANCE
    assert [vm["name"] for vm in emulator.resources("virtualMachines")] == ["held"]
    # Every disk goes with it: without forceDeletion it would be forced (and refused) too; false goes through.
    with pytest.raises(HttpResponseError):
        clients.compute.virtual_machines.begin_delete(RG, "held")
    clients.compute.virtual_machines.begin_delete(RG, "held", force_deletion=False).result()
    assert deletions(emulator) == [{"forceDeletion": "false", "forced": False, "azureSeconds": 0.0}]
    assert emulator.resources("virtualMachines") == []


def test_a_missing_vm_is_no_content_and_no_deletion(emulator: EmulatorHandle, clients: SyncClients) -> None:
    clients.compute.virtual_machines.begin_delete(RG, "never-was", force_deletion=True).result()
    assert deletions(emulator) == []
