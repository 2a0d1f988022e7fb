"""One machine with every production field of docs/vm-features.md at once: created as Azure stores each of them,
changed in place where Azure allows (identity, boot diagnostics, NIC memberships in one update_spec), and deleted
with nothing left, its public IP included."""

from typing import Any

from emulator.compute.compute_references import (
    CAPACITY_RESERVATION_GROUPS,
    DISK_ENCRYPTION_SETS,
    PROXIMITY_PLACEMENT_GROUPS,
    seed_reference_id,
)
from emulator.seed import SEED_PLAN, seed_asg_id, seed_backend_pool_id, seed_identity_id, seed_nsg_id
from models.spec_changes import SpecUpdate
from models.status import Phase
from models.temporal_api import UPDATE_SPEC
from tests.workflows.data_disks import RG, operator
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

EVERYTHING: dict[str, Any] = {
    "identity": {"type": "UserAssigned", "user_assigned_identities": [seed_identity_id()]},
    "plan": SEED_PLAN, "accept_terms": True, "boot_diagnostics": False,
    "public_ip": {}, "network_security_group_id": seed_nsg_id(),
    "application_security_group_ids": [seed_asg_id()],
    "load_balancer_backend_address_pool_ids": [seed_backend_pool_id()],
    "encryption_at_host": True, "disk_encryption_set_id": seed_reference_id(DISK_ENCRYPTION_SETS),
    "capacity_reservation_group_id": seed_reference_id(CAPACITY_RESERVATION_GROUPS),
    "proximity_placement_group_id": seed_reference_id(PROXIMITY_PLACEMENT_GROUPS),
}


async def _read(stack: Stack) -> tuple[Any, Any]:
    """The VM and its NIC as Azure holds them, through the real SDK."""
    async with operator(stack) as clients:
        return (await clients.compute.virtual_machines.get(RG, "vm1"),
                await clients.network.network_interfaces.get(RG, "vm1-nic"))


async def test_a_machine_with_every_field_runs_changes_in_place_and_leaves_nothing(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, **EVERYTHING)
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    status = await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED))
    assert status.phase == Phase.RUNNING, status.last_error
    assert sorted(stack.kinds()) == ["disks", "disks", "networkInterfaces", "publicIPAddresses", "virtualMachines"]
    vm, nic = await _read(stack)
    assert [key.lower() for key in vm.identity.user_assigned_identities] == [seed_identity_id().lower()]
    assert vm.plan.name == SEED_PLAN["name"] and vm.security_profile.encryption_at_host is True
    assert vm.proximity_placement_group.id.lower() == EVERYTHING["proximity_placement_group_id"].lower()
    assert vm.capacity_reservation.capacity_reservation_group.id.lower() == \
        EVERYTHING["capacity_reservation_group_id"].lower()
    assert vm.storage_profile.os_disk.managed_disk.disk_encryption_set.id.lower() == \
        EVERYTHING["disk_encryption_set_id"].lower()
    assert nic.network_security_group.id.lower() == seed_nsg_id().lower()
    assert [g.id.lower() for g in nic.ip_configurations[0].application_security_groups] == [seed_asg_id().lower()]
    assert nic.enable_accelerated_networking is True  # the size supports it: taken from its resource SKU
    assert nic.ip_configurations[0].public_ip_address.id.endswith("/vm1-pip")

    changed = {**spec, "identity": {"type": "SystemAssigned"}, "boot_diagnostics": True,
               "network_security_group_id": "", "application_security_group_ids": []}
    answer: SpecUpdate = await handle.execute_update(UPDATE_SPEC, changed, result_type=SpecUpdate)
    assert {"boot_diagnostics", "network_security_group_id", "application_security_group_ids"} <= set(answer.changed)
    assert any(field.startswith("identity") for field in answer.changed), answer
    vm, nic = await _read(stack)
    assert vm.identity.type == "SystemAssigned" and vm.diagnostics_profile.boot_diagnostics.enabled is True
    assert nic.network_security_group is None and not nic.ip_configurations[0].application_security_groups
    assert stack.emulator.requests()["by_operation"].get("virtualMachines.put", 0) == 1  # the same VM throughout

    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
    assert stack.machine_resources() == []
