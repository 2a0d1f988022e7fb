"""Disks and placement fields (docs/vm-features.md): a machine created with each, as the emulator stored it; what
Azure refuses is told by the machine naming the field, never retried forever; an ephemeral OS disk's preserve
powers the VM off (Azure cannot deallocate it); a change to any of them needs a new VM."""

from datetime import timedelta
from typing import Any

import pytest
from azure.mgmt.compute import models as cm

from emulator.compute.compute_references import ENCRYPTION_AT_HOST_FEATURE, SEED_AVSET, SEED_CRG, SEED_DES, SEED_PPG
from models.status import MachineStatus, Phase
from models.temporal_api import PRESERVE_SIGNAL
from tests.workflows.data_disks import RG, descriptions, operator, vm
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack
from tests.workflows.test_invalid_input import _fails_at_once_naming
from tests.workflows.test_update_spec import refused

DES, CRG, PPG, AVSET = SEED_DES, SEED_CRG, SEED_PPG, SEED_AVSET


async def _running(stack: Stack, **fields: Any) -> tuple[Any, dict[str, Any]]:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, **fields)
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    status = await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED))
    assert status.phase == Phase.RUNNING, status.last_error
    return handle, spec


async def _stored_vm(stack: Stack) -> cm.VirtualMachine:
    async with operator(stack) as clients:
        return await clients.compute.virtual_machines.get(RG, "vm1")


async def _stored_disk(stack: Stack, name: str) -> cm.Disk:
    async with operator(stack) as clients:
        return await clients.compute.disks.get(RG, name)


async def _deleted(stack: Stack, handle: Any) -> None:
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED and stack.machine_resources() == []


async def _failed_naming(stack: Stack, field: str, **fields: Any) -> MachineStatus:
    """The machine fails as for any spec Azure refuses (retried with backoff until the creation timeout, then
    Failed with nothing left in Azure), its error naming `field`. Both phases it waits for last, so it reads the
    status every 30 virtual seconds, not every second of the 20 minutes (each read is a query and a sleep)."""
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, **fields)
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    status = await wait_for(stack.env, handle, in_phase(Phase.FAILED, Phase.RUNNING), step=timedelta(seconds=30))
    assert status.phase == Phase.FAILED and f"(spec field {field})" in status.last_error, status.last_error
    assert stack.emulator.resources("virtualMachines") == []
    await _deleted(stack, handle)
    return status


async def test_placement_ids_reach_the_vm(stack: Stack) -> None:
    handle, _ = await _running(stack, capacity_reservation_group_id=CRG, proximity_placement_group_id=PPG,
                               availability_set_id=AVSET)
    stored = await _stored_vm(stack)
    assert stored.capacity_reservation.capacity_reservation_group.id == CRG
    assert stored.proximity_placement_group.id == PPG and stored.availability_set.id == AVSET
    await _deleted(stack, handle)


@pytest.mark.parametrize(("field", "kind"), [("capacity_reservation_group_id", "capacityReservationGroups"),
                                             ("proximity_placement_group_id", "proximityPlacementGroups"),
                                             ("availability_set_id", "availabilitySets")])
async def test_a_placement_id_that_does_not_exist_fails_the_machine_naming_the_field(stack: Stack, field: str,
                                                                                      kind: str) -> None:
    missing = f"/subscriptions/{stack.emulator.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Compute/" \
              f"{kind}/nope"
    status = await _failed_naming(stack, field, **{field: missing})
    assert "InvalidResourceReference" in status.last_error


async def test_encryption_at_host_and_a_disk_encryption_set_reach_the_vm_and_its_disks(stack: Stack) -> None:
    handle, _ = await _running(stack, encryption_at_host=True, disk_encryption_set_id=DES)
    stored = await _stored_vm(stack)
    assert stored.security_profile.encryption_at_host is True
    assert stored.storage_profile.os_disk.managed_disk.disk_encryption_set.id == DES
    assert stored.storage_profile.data_disks[0].managed_disk.disk_encryption_set.id == DES
    for name in ("vm1-os-disk", "vm1-data-0-data-disk"):
        encryption = (await _stored_disk(stack, name)).encryption
        assert (encryption.type, encryption.disk_encryption_set_id) == ("EncryptionAtRestWithCustomerKey", DES)
    await _deleted(stack, handle)


async def test_encryption_at_host_without_the_subscription_feature_fails_naming_the_field(stack: Stack) -> None:
    stack.emulator.register_feature(ENCRYPTION_AT_HOST_FEATURE, registered=False)
    status = await _failed_naming(stack, "encryption_at_host", encryption_at_host=True)
    assert "feature is not enabled for this subscription" in status.last_error


async def test_a_disk_encryption_set_that_does_not_exist_fails_naming_the_field(stack: Stack) -> None:
    await _failed_naming(stack, "disk_encryption_set_id", disk_encryption_set_id=DES.replace("azmc-des", "gone"))


async def test_an_ephemeral_os_disk_is_created_and_preserve_powers_it_off(stack: Stack) -> None:
    handle, _ = await _running(stack, os_disk={"size_gb": 30, "ephemeral": {"placement": "CacheDisk"}},
                               disk_encryption_set_id=DES)
    os_disk = (await _stored_vm(stack)).storage_profile.os_disk
    assert (os_disk.diff_disk_settings.option, os_disk.diff_disk_settings.placement) == ("Local", "CacheDisk")
    assert os_disk.caching == "ReadOnly" and os_disk.managed_disk.disk_encryption_set is None
    assert [d["name"] for d in stack.emulator.resources("disks")] == ["vm1-data-0-data-disk"]
    await handle.signal(PRESERVE_SIGNAL, {"reason": "diagnose"})
    preserved = await wait_for(stack.env, handle, lambda s: any(d.startswith("preserved (") for d in descriptions(s)))
    assert "VM vm1 powered off (its ephemeral OS disk cannot be deallocated" in descriptions(preserved)[-1]
    assert vm(stack)["powerState"] == "stopped" and preserved.inventory.vm_state.power_state == "stopped"
    assert stack.emulator.requests()["by_operation"].get("virtualMachines.deallocate", 0) == 0
    await _deleted(stack, handle)


async def test_an_ephemeral_os_disk_larger_than_the_cache_fails_naming_the_field(stack: Stack) -> None:
    status = await _failed_naming(stack, "os_disk.ephemeral",
                                  os_disk={"size_gb": 64, "ephemeral": {"placement": "CacheDisk"}})
    assert "NotSupported" in status.last_error and "greater than 50 GB" in status.last_error


async def test_an_availability_set_with_a_zone_is_refused_before_azure(stack: Stack) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue,
                                 spec_dict(subnet_id=stack.emulator.subnet_id, availability_set_id=AVSET, zone="1"))
    await _fails_at_once_naming(stack, handle, "availability_set_id and zones")


@pytest.mark.parametrize("changes", [{"encryption_at_host": True}, {"disk_encryption_set_id": DES},
                                     {"capacity_reservation_group_id": CRG}, {"proximity_placement_group_id": PPG},
                                     {"availability_set_id": AVSET},
                                     {"os_disk": {"size_gb": 30, "ephemeral": {"placement": "CacheDisk"}}}])
async def test_changing_a_disk_or_placement_field_needs_a_new_vm(stack: Stack, changes: dict[str, Any]) -> None:
    handle, spec = await _running(stack)
    message = await refused(handle, {**spec, **changes})
    named = next(iter(changes)) if "os_disk" not in changes else "os_disk.ephemeral"
    assert f"{named} cannot change" in message, message
    await _deleted(stack, handle)
