"""The VM agent in the instance view: Not Ready while the guest boots (`boot_seconds` on the emulator clock)
after a creation or a start, Ready afterwards, and absent while the VM is stopped or deallocated."""

from __future__ import annotations

import time

import pytest
from azure.mgmt.compute import models as cm

from tests.emulator.builders import RG
from tests.emulator.steps import make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

BOOTING = {"code": "ProvisioningState/Unavailable", "level": "Warning", "display_status": "Not Ready",
           "message": "VM status blob is found but not yet populated."}


def agent(clients: SyncClients, name: str) -> cm.VirtualMachineAgentInstanceView | None:
    return clients.compute.virtual_machines.get(RG, name, expand="instanceView").instance_view.vm_agent


def agent_status(clients: SyncClients, name: str) -> dict[str, str | None]:
    found = agent(clients, name)
    assert found is not None and found.statuses
    status = found.statuses[0]
    assert status.time is not None
    return {"code": status.code, "level": status.level, "display_status": status.display_status,
            "message": status.message}


def test_agent_is_ready_at_once_by_default(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "quick")
    assert agent_status(clients, "quick")["display_status"] == "Ready"
    assert clients.compute.virtual_machines.instance_view(RG, "quick").vm_agent.statuses[0].display_status == "Ready"


def test_new_vm_boots_before_its_agent_is_ready(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.settings(time_scale=1, boot_seconds=3600)
    make_vm(clients, emulator, "slow")
    assert agent_status(clients, "slow") == BOOTING
    # The time scale applies to a boot under way: at 0 it is over.
    emulator.settings(time_scale=0)
    assert agent_status(clients, "slow")["display_status"] == "Ready"


def test_boot_ends_on_the_emulator_clock(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.settings(time_scale=0.01, boot_seconds=20)  # 0.2 s of wall time
    make_vm(clients, emulator, "clocked")
    deadline = time.monotonic() + 20
    while agent_status(clients, "clocked")["display_status"] != "Ready":
        assert time.monotonic() < deadline, "the boot never ended"
        time.sleep(0.05)


@pytest.mark.parametrize("verb", ["begin_power_off", "begin_deallocate"])
def test_stopped_vm_has_no_agent_and_boots_again_on_start(
        emulator: EmulatorHandle, clients: SyncClients, verb: str) -> None:
    make_vm(clients, emulator, "sleeper")
    getattr(clients.compute.virtual_machines, verb)(RG, "sleeper").result()
    assert agent(clients, "sleeper") is None
    emulator.settings(time_scale=1, boot_seconds=3600)
    clients.compute.virtual_machines.begin_start(RG, "sleeper").result()
    assert agent_status(clients, "sleeper") == BOOTING
