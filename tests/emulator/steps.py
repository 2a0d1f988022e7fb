"""SDK steps many emulator tests take first: a NIC on the seeded subnet, a VM on its own NIC."""

from __future__ import annotations

from typing import Any

from azure.mgmt.compute import models as cm

from tests.emulator.builders import RG, nic_body, vm_body
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def make_nic(clients: SyncClients, emulator: EmulatorHandle, name: str) -> str:
    """Create NIC `name` on the seeded subnet; its id."""
    return clients.network.network_interfaces.begin_create_or_update(
        RG, name, nic_body(emulator.subnet_id)).result().id


def make_vm(clients: SyncClients, emulator: EmulatorHandle, name: str, **body: Any) -> cm.VirtualMachine:
    """Create VM `name` on a new NIC `<name>-nic`; `body` goes to `vm_body` (data_disks, attach, ...)."""
    nic_id = make_nic(clients, emulator, f"{name}-nic")
    return clients.compute.virtual_machines.begin_create_or_update(RG, name, vm_body(name, nic_id, **body)).result()
