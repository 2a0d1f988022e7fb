"""VM operations are waited for on the worker's shared status reads (activities/reading/vm_statuses.py): one list
of the subscription's VMs with statusOnly=true answers every machine waiting, and Azure's exact error still comes
back from the operation itself when the VM's states cannot tell it. Real driver, real SDK, the emulator at Azure's
durations scaled down (its Retry-After hints scale with them)."""

import asyncio
import math
from collections.abc import Callable
from typing import Any

import pytest

from activities.driver import AzureDriver
from emulator.arm.latency import duration
from emulator.arm.operations import USUAL_RETRY_AFTER_S
from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import DeleteVmInput, EnsureVmInput, MachineRef
from models.errors import ErrorType
from models.spec import MachineSpec
from tests.activities.conftest import INSTALLATION, TOKEN
from tests.support.driver import emulator_driver

SCALE = 0.02
STATUS_READ, POLL = "virtualMachines.list", "operations.poll"
# One machine's create polled every Retry-After from the PUT, 10 s ... 50 s.
ONE_CREATE = math.ceil(duration("realistic", "virtualMachines.put") / USUAL_RETRY_AFTER_S)


async def _create(env: Any, driver: AzureDriver, spec: MachineSpec) -> Any:
    nic_id = await env.run(driver.ensure_nic, spec)
    return await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id, vm_absent=True))


async def test_a_lone_create_reads_the_statuses_once_per_retry_after_and_polls_nothing(
        emulator: Any, driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec]) -> None:
    emulator.settings(latency_profile="realistic", time_scale=SCALE)
    driver.reset_request_counts()
    inventory = await _create(env, driver, make_spec("lone", data_disks=[]))
    assert inventory.vm_healthy
    counts = driver.request_counts()
    assert counts.get(POLL, 0) == 0
    assert 1 <= counts[STATUS_READ] < ONE_CREATE  # fewer than its own polls (its pace grows while it waits)


async def test_ten_creates_in_one_worker_share_their_status_reads(
        emulator: Any, env: Any, make_spec: Callable[..., MachineSpec]) -> None:
    emulator.settings(latency_profile="realistic", time_scale=SCALE)
    specs = [make_spec(f"crowd{i}", data_disks=[]) for i in range(10)]
    # The worker's ARM pace is wall-clock: unpaced here, so the ten PUTs leave within a scaled Retry-After.
    async with emulator_driver(emulator, INSTALLATION, TOKEN, arm_writes_per_s=1000.0) as driver:
        nics = await asyncio.gather(*(env.run(driver.ensure_nic, spec) for spec in specs))
        driver.reset_request_counts()
        made = await asyncio.gather(*(env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic, vm_absent=True))
                                      for spec, nic in zip(specs, nics, strict=True)))
        counts = driver.request_counts()
    assert all(inventory.vm_healthy for inventory in made)
    assert counts.get(POLL, 0) == 0
    # Ten machines waited as long as one, on the same reads (polling, each would have made ONE_CREATE).
    assert counts[STATUS_READ] <= ONE_CREATE, counts


async def test_a_failed_create_still_reports_azures_code_from_one_read_of_its_operation(
        emulator: Any, driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec]) -> None:
    emulator.settings(latency_profile="realistic", time_scale=SCALE)
    emulator.add_fault(operation="virtualMachines.put", name="refused", status=409, code="AllocationFailed",
                       message="Allocation failed. We do not have sufficient capacity.", stage="operation")
    spec = make_spec("refused", data_disks=[])
    nic_id = await env.run(driver.ensure_nic, spec)
    driver.reset_request_counts()
    with pytest.raises(Exception) as failed:
        await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id, vm_absent=True))
    assert getattr(failed.value, "type", "") == ErrorType.CAPACITY_EXHAUSTED
    assert "AllocationFailed" in str(failed.value) and "sufficient capacity" in str(failed.value)
    assert driver.request_counts()[POLL] == 1  # the list says Failed; the operation says why


async def test_without_permission_to_list_the_vms_each_operation_is_polled_as_before(
        emulator: Any, driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec]) -> None:
    emulator.settings(latency_profile="realistic", time_scale=SCALE)
    emulator.add_fault(operation="virtualMachines.list", status=403, code="AuthorizationFailed",
                       message="The client does not have authorization to perform action "
                               "'Microsoft.Compute/virtualMachines/read' over scope '/subscriptions/x'.",
                       times=-1)
    driver.reset_request_counts()
    inventory = await _create(env, driver, make_spec("scoped", data_disks=[]))
    assert inventory.vm_healthy
    counts = driver.request_counts()
    assert counts[STATUS_READ] == 1 and counts[POLL] >= ONE_CREATE - 1  # refused once, then its own polls
    driver.reset_request_counts()
    await _create(env, driver, make_spec("scoped2", data_disks=[]))  # the board stays aside: no list tried again
    assert driver.request_counts().get(STATUS_READ, 0) == 0


async def test_a_delete_ends_when_the_vm_and_what_goes_with_it_are_gone(
        emulator: Any, driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec]) -> None:
    emulator.settings(latency_profile="realistic", time_scale=SCALE)
    spec = make_spec("gone", data_disks=[])
    await _create(env, driver, spec)
    driver.reset_request_counts()
    await env.run(driver.delete_vm, DeleteVmInput(machine=MachineRef(resource_group=SEED_RESOURCE_GROUP,
                                                                     name="gone"), force=True))
    assert driver.request_counts().get(POLL, 0) == 0
    # The NIC and OS disk went in the VM's own delete (deleteOption Delete), before the VM left ARM's lists.
    assert [r["name"] for r in emulator.resources() if r["name"].startswith("gone")] == []


async def test_the_drain_waits_on_the_status_reads_too(
        emulator: Any, driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec]) -> None:
    emulator.settings(latency_profile="realistic", time_scale=SCALE)
    spec = make_spec("drained", data_disks=[])
    await _create(env, driver, spec)
    driver.reset_request_counts()
    await env.run(driver.power_off, MachineRef(resource_group=SEED_RESOURCE_GROUP, name="drained"))
    counts = driver.request_counts()
    assert counts.get(POLL, 0) == 0 and counts[STATUS_READ] >= 1
    [vm] = [r for r in emulator.resources("virtualMachines") if r["name"] == "drained"]
    assert vm["powerState"] == "stopped"
