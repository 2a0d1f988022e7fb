"""Every activity run twice, and interrupted mid-operation then retried, leaves exactly what it should."""

import asyncio
import base64
import dataclasses
from typing import Any

import pytest
from temporalio.exceptions import CancelledError
from temporalio.testing import ActivityEnvironment

from activities.driver import AzureDriver
from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import DeleteResourceInput, DeleteVmInput, EnsureVmInput, MachineRef
from tests.activities.conftest import TOKEN

RG = SEED_RESOURCE_GROUP
VM1 = MachineRef(resource_group=RG, name="vm1")


def names(emulator: Any, kind: str) -> list[str]:
    return sorted(r["name"] for r in emulator.resources(kind))


def machine_resources(emulator: Any) -> dict[str, list[str]]:
    return {kind: names(emulator, kind) for kind in ("virtualMachines", "networkInterfaces", "disks")}


def requests_of(emulator: Any, operation: str) -> int:
    snapshot = emulator.requests()
    return int(snapshot["by_operation"].get(operation, 0))


async def test_ensure_nic_twice_is_one_nic(driver, env, make_spec, emulator) -> None:
    spec = make_spec()
    first = await env.run(driver.ensure_nic, spec)
    second = await env.run(driver.ensure_nic, spec)
    assert first == second and first.endswith("/networkInterfaces/vm1-nic")
    assert names(emulator, "networkInterfaces") == ["vm1-nic"]
    assert requests_of(emulator, "networkInterfaces.put") == 1


async def test_ensure_vm_twice_is_one_vm_and_one_put(driver, env, make_spec, create_machine, emulator) -> None:
    spec = make_spec()
    first = await create_machine(spec)
    second = await create_machine(spec)
    assert first.provider_id == second.provider_id
    assert machine_resources(emulator) == {
        "virtualMachines": ["vm1"], "networkInterfaces": ["vm1-nic"],
        "disks": ["vm1-0-data-disk", "vm1-os-disk"],
    }
    assert requests_of(emulator, "virtualMachines.put") == 1


async def test_deletes_twice_are_done(driver, env, make_spec, create_machine, emulator, make_disk) -> None:
    await create_machine(make_spec())
    await make_disk("vm1-scratch-7-data-disk", {"azmc-machine": "vm1"})
    for _ in range(2):
        await env.run(driver.delete_vm, DeleteVmInput(machine=VM1))
    # deleteOption Delete took the NIC and the OS disk with it; the data disk (Detach) and the stray disk
    # are deleted separately.
    assert machine_resources(emulator) == {"virtualMachines": [], "networkInterfaces": [],
                                           "disks": ["vm1-0-data-disk", "vm1-scratch-7-data-disk"]}
    for _ in range(2):
        for disk in ("vm1-0-data-disk", "vm1-scratch-7-data-disk"):
            await env.run(driver.delete_disk, DeleteResourceInput(machine=VM1, name=disk))
        await env.run(driver.delete_nic, DeleteResourceInput(machine=VM1, name="vm1-nic"))
    assert machine_resources(emulator) == {"virtualMachines": [], "networkInterfaces": [], "disks": []}


async def test_force_delete_and_nic_only_delete(driver, env, make_spec, create_machine, emulator) -> None:
    await create_machine(make_spec())
    await env.run(driver.delete_vm, DeleteVmInput(machine=VM1, force=True))
    assert machine_resources(emulator)["virtualMachines"] == []
    await env.run(driver.ensure_nic, make_spec())
    await env.run(driver.delete_nic, DeleteResourceInput(machine=VM1, name="vm1-nic"))
    assert machine_resources(emulator)["networkInterfaces"] == []


async def interrupt_after_first_heartbeat(env: ActivityEnvironment, fn: Any, arg: Any) -> list[Any]:
    """Run an activity until it heartbeats a continuation token, then cancel it (a worker crash/timeout)."""
    beats: list[Any] = []
    heartbeated = asyncio.Event()

    def on_heartbeat(*details: Any) -> None:
        beats.append(details)
        heartbeated.set()

    env.on_heartbeat = on_heartbeat
    task = asyncio.create_task(env.run(fn, arg))
    await asyncio.wait_for(heartbeated.wait(), timeout=30)
    env.cancel()
    with pytest.raises((asyncio.CancelledError, CancelledError)):
        await task
    return list(beats[-1])


async def test_an_operation_azure_ends_at_once_heartbeats_nothing(driver, env, make_spec, emulator) -> None:
    """A heartbeat is a write on the Temporal server: an operation done within the first second needs none."""
    beats: list[Any] = []
    env.on_heartbeat = lambda *details: beats.append(details)
    spec = make_spec()
    await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=await env.run(driver.ensure_nic, spec)))
    assert beats == []
    emulator.add_fault(operation="virtualMachines.delete", name="vm1", status=0, delay_s=2, stage="operation")
    await env.run(driver.delete_vm, DeleteVmInput(machine=VM1))
    assert beats and all(details[0] for details in beats)  # a longer one heartbeats its token


def retried_env(details: list[Any]) -> ActivityEnvironment:
    """A second attempt of the same activity, as Temporal runs it: attempt 2 with the last heartbeat details."""
    retry = ActivityEnvironment()
    retry.info = dataclasses.replace(retry.info, attempt=2, heartbeat_details=details)
    return retry


async def test_interrupted_vm_create_resumes_without_a_second_put(driver, env, make_spec, emulator) -> None:
    spec = make_spec()
    nic_id = await env.run(driver.ensure_nic, spec)
    emulator.add_fault(operation="virtualMachines.put", name="vm1", status=0, delay_s=2, stage="operation")
    details = await interrupt_after_first_heartbeat(env, driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))
    assert details and isinstance(details[0], str) and details[0]
    assert TOKEN.encode() not in base64.b64decode(details[0])  # heartbeat details reach Temporal's history
    inventory = await retried_env(details).run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))
    assert inventory.has_vm and inventory.vm_state.provisioning_state == "Succeeded"
    assert requests_of(emulator, "virtualMachines.put") == 1
    assert machine_resources(emulator) == {
        "virtualMachines": ["vm1"], "networkInterfaces": ["vm1-nic"],
        "disks": ["vm1-0-data-disk", "vm1-os-disk"],
    }


async def test_a_create_killed_before_its_first_heartbeat_is_waited_for_not_put_again(driver, env, make_spec,
                                                                                     emulator) -> None:
    """No token to resume: the next attempt finds the VM Creating. A second PUT would meet 409
    AnotherOperationInProgress and the machine would rebuild it; the attempt waits for Azure instead."""
    spec = make_spec()
    nic_id = await env.run(driver.ensure_nic, spec)
    emulator.add_fault(operation="virtualMachines.put", name="vm1", status=0, delay_s=3, stage="operation")
    first = asyncio.create_task(env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id, vm_absent=True)))
    for _ in range(200):  # at most 10 s for the PUT to be accepted
        if requests_of(emulator, "virtualMachines.put"):
            break
        await asyncio.sleep(0.05)
    env.cancel()  # the worker dies with its PUT accepted, before it heartbeated anything
    with pytest.raises((asyncio.CancelledError, CancelledError)):
        await first
    inventory = await retried_env([]).run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id, vm_absent=True))
    assert inventory.has_vm and inventory.vm_state.provisioning_state == "Succeeded"
    # The retry's create-only PUT met the VM (412) and wrote nothing; no PUT was refused, nothing deleted.
    answered = emulator.requests()
    assert answered["failed_by_operation"].get("virtualMachines.put", 0) == 1  # the 412
    assert answered["by_operation"].get("virtualMachines.put", 0) == 2
    assert answered["vm_deletions"] == []
    assert machine_resources(emulator) == {
        "virtualMachines": ["vm1"], "networkInterfaces": ["vm1-nic"],
        "disks": ["vm1-0-data-disk", "vm1-os-disk"],
    }


async def test_interrupted_vm_delete_resumes(driver, env, make_spec, create_machine, emulator) -> None:
    await create_machine(make_spec())
    emulator.add_fault(operation="virtualMachines.delete", name="vm1", status=0, delay_s=2, stage="operation")
    details = await interrupt_after_first_heartbeat(env, driver.delete_vm, DeleteVmInput(machine=VM1))
    await retried_env(details).run(driver.delete_vm, DeleteVmInput(machine=VM1))
    assert requests_of(emulator, "virtualMachines.delete") == 1
    # The data disk is detached, never deleted with the VM.
    assert machine_resources(emulator) == {"virtualMachines": [], "networkInterfaces": [],
                                           "disks": ["vm1-0-data-disk"]}


async def test_stale_token_falls_back_to_a_fresh_check(driver: AzureDriver, make_spec, create_machine,
                                                       emulator) -> None:
    spec = make_spec()
    inventory = await create_machine(spec)
    bogus = ["not-a-continuation-token"]
    again = await retried_env(bogus).run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id="unused"))
    assert again.provider_id == inventory.provider_id
    assert requests_of(emulator, "virtualMachines.put") == 1


async def test_retry_after_a_failed_operation_does_not_loop_on_its_token(driver, env, make_spec,
                                                                         emulator) -> None:
    """Attempt 1's operation failed (AllocationFailed); attempt 2 must not poll that dead operation forever."""
    spec = make_spec()
    nic_id = await env.run(driver.ensure_nic, spec)
    # It fails after 2 s: past the first heartbeat, so its token is in the details.
    emulator.add_fault(operation="virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                       stage="operation", delay_s=2)
    beats: list[Any] = []
    env.on_heartbeat = lambda *details: beats.append(details)
    with pytest.raises(Exception) as first:
        await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))
    assert getattr(first.value, "type", "") == "CapacityExhausted"
    # The operation's token (tagging the failed VM's disks afterwards heartbeats "": nothing to resume).
    retry = retried_env(list(next(beat for beat in reversed(beats) if beat and beat[0])))
    cleared: list[Any] = []
    retry.on_heartbeat = lambda *details: cleared.append(details)
    with pytest.raises(Exception) as second:
        await retry.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))
    # The VM itself says why it failed; the stale token was cleared for attempt 3.
    assert getattr(second.value, "type", "") == "CapacityExhausted"
    assert ("",) in cleared
    assert requests_of(emulator, "virtualMachines.put") == 1
