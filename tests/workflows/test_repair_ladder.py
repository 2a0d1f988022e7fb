"""Alive means healthy: a running VM whose guest or host does not work is Unhealthy, and repaired in steps
that keep its data (restart, redeploy, re-create), each given time to work before the next. Guest faults come
from the emulator's control API, as Azure would show them (VM agent, Resource Health, probes)."""

from datetime import timedelta
from typing import Any

import pytest

from models.status import MachineStatus, Phase, Stage
from tests.workflows.data_disks import DATA_DISK, descriptions, unique_id, vm
from tests.workflows.helpers import between_tasks, in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

# Checks every minute (the sweep's `reconcile` stands for this in production), repairs after 5 minutes.
WATCHED: dict[str, Any] = {"timeouts": {"health": "5m", "health_check_interval": "1m"}}
STEP = timedelta(seconds=30)


def _requests(stack: Stack, operation: str) -> int:
    return stack.emulator.requests()["by_operation"].get(f"virtualMachines.{operation}", 0)


def _healed_after(action: str) -> Any:
    return lambda s: s.phase == Phase.RUNNING and any(f"healthy again after {action}" in d for d in descriptions(s))


def _repairs(status: MachineStatus) -> list[str]:
    return [op.description for op in status.recent_operations if op.stage == Stage.REPAIR]


async def _running(stack: Stack, **overrides: Any) -> Any:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, **{**WATCHED, **overrides})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    return handle


@pytest.mark.parametrize("fault", ["hang", "kernel_panic"])
async def test_a_hung_guest_is_repaired_by_a_restart_after_the_health_timeout(stack: Stack, fault: str) -> None:
    handle = await _running(stack)
    vm_id = vm(stack)["id"]
    stack.emulator.add_guest_fault("vm1", fault)
    sick = await wait_for(stack.env, handle, in_phase(Phase.UNHEALTHY), step=STEP)
    agent = next(s for s in sick.health if s.name == "vm_agent")
    assert not agent.healthy and agent.value == "Not Ready"
    assert sick.repair is not None and sick.repair.step == -1  # waiting timeouts.health first
    assert _requests(stack, "restart") == 0
    healed = await wait_for(stack.env, handle, _healed_after("restart"), step=STEP)
    assert _requests(stack, "restart") == 1 and _requests(stack, "redeploy") == 0
    assert vm(stack)["id"] == vm_id  # the same VM: restarted, not rebuilt
    assert healed.repair is None and all(s.healthy for s in healed.health)
    assert any(d.startswith("unhealthy (vm_agent Not Ready") and "restart (step 1 of 3)" in d for d in _repairs(healed))
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
    if fault == "hang":
        await record_history(handle, "unhealthy_restarted")


async def test_a_host_failure_is_repaired_by_a_redeploy_when_a_restart_did_not(stack: Stack) -> None:
    handle = await _running(stack)
    host = vm(stack)["host"]
    stack.emulator.add_guest_fault("vm1", "host_failure")
    sick = await wait_for(stack.env, handle, in_phase(Phase.UNHEALTHY), step=STEP)
    await wait_for(stack.env, handle, lambda s: s.repair is not None and s.repair.action == "restart", step=STEP)
    healed = await wait_for(stack.env, handle, _healed_after("redeploy"), step=STEP)
    assert _requests(stack, "restart") == 1 and _requests(stack, "redeploy") == 1
    assert vm(stack)["host"] != host  # a new host; the VM, disks and NIC kept
    azure_says = next(s for s in sick.health if s.name == "resource_health")
    assert azure_says.value == "Unavailable" and not azure_says.healthy and "Platform Initiated" in azure_says.reason
    assert all(s.healthy for s in healed.health)
    await handle.signal("delete")
    await handle.result()


async def test_a_guest_that_stays_hung_is_re_created_with_its_data_disk(stack: Stack) -> None:
    handle = await _running(stack, health={"repair": [{"action": "restart", "wait": "3m"},
                                                      {"action": "redeploy", "wait": "3m"}, "recreate"]})
    before = unique_id(stack)
    stack.emulator.add_guest_fault("vm1", "hang", persistent=True)  # no reboot clears it
    seen: list[MachineStatus] = []

    def recreated(status: MachineStatus) -> bool:
        seen.append(status)
        return status.phase == Phase.RUNNING and _requests(stack, "put") == 2

    healed = await wait_for(stack.env, handle, recreated, step=STEP)
    assert _requests(stack, "restart") == 1 and _requests(stack, "redeploy") == 1 and _requests(stack, "delete") == 1
    assert any("re-creating the VM, keeping its data disks (step 3 of 3)" in d for s in seen for d in _repairs(s))
    assert unique_id(stack) == before  # the data survived the re-creation
    assert {d.name: d.unique_id for d in healed.inventory.data_disks}[DATA_DISK] == before
    assert healed.repair is None and all(s.healthy for s in healed.health)
    assert stack.emulator.guest_faults() == []  # the fault ended with the VM it hung
    await handle.signal("delete")
    await handle.result()
    assert stack.machine_resources() == []


async def test_reconcile_skips_the_wait_and_repairs_at_once(stack: Stack) -> None:
    handle = await _running(stack, timeouts={"health": "1h", "health_check_interval": "1m"})
    stack.emulator.add_guest_fault("vm1", "kernel_panic")
    await wait_for(stack.env, handle, in_phase(Phase.UNHEALTHY), step=STEP)
    await handle.signal("reconcile", {"check_only": True, "reason": "fleet sweep"})  # the sweep's: waits kept
    await between_tasks(stack.env, handle.id)
    await stack.env.sleep(timedelta(minutes=10))
    assert (await handle.query("status"))["phase"] == Phase.UNHEALTHY and _requests(stack, "restart") == 0
    await handle.signal("reconcile")  # an operator's: the next step now
    await wait_for(stack.env, handle, _healed_after("restart"), step=STEP, virtual_limit=timedelta(minutes=20))
    assert _requests(stack, "restart") == 1
    await handle.signal("delete")
    await handle.result()


async def test_a_guest_that_never_boots_fails_its_creation_attempt_and_the_next_one_runs(stack: Stack) -> None:
    stack.emulator.add_guest_fault("vm1", "boot_failure")
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, timeouts={"startup": "3m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING), step=STEP)
    assert running.attempts == 2
    assert any("GuestNotReady" in d or "waiting for its guest" in d for d in descriptions(running))
    assert stack.emulator.guest_faults() == []  # the attempt's VM was deleted, and its fault with it
    await handle.signal("delete")
    await handle.result()
    assert stack.machine_resources() == []
    await record_history(handle, "boot_failure_next_attempt_runs")


async def test_a_probe_that_fails_makes_the_machine_unhealthy_and_shows_why(stack: Stack) -> None:
    probe = {"tcp": {"port": 22}, "period": "30s", "failure_threshold": 2}
    handle = await _running(stack, health={"probe": probe}, timeouts={"health": "5m", "health_check_interval": "6h"})
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    assert any(s.name == "probe" and s.healthy and s.value == "passing" for s in running.health)
    stack.emulator.add_guest_fault("vm1", "hang")
    sick = await wait_for(stack.env, handle, in_phase(Phase.UNHEALTHY), step=timedelta(seconds=10))
    failing = next(s for s in sick.health if s.name == "probe")
    assert not failing.healthy and failing.value == "failing" and "tcp port 22" in failing.reason
    stack.emulator.clear_guest_faults()
    await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and s.repair is None, step=STEP)
    await handle.signal("delete")
    await handle.result()


async def test_a_preserved_machine_is_never_repaired(stack: Stack) -> None:
    handle = await _running(stack)
    await handle.signal("preserve", {"reason": "diagnosis"})
    await wait_for(stack.env, handle, lambda s: s.preserved and s.inventory.vm_state.power_state == "deallocated")
    stack.emulator.add_guest_fault("vm1", "host_failure")
    await stack.env.sleep(timedelta(hours=2))
    status = await handle.query("status")
    assert status["phase"] != Phase.UNHEALTHY and status["repair"] is None
    assert _requests(stack, "restart") == 0 and _requests(stack, "redeploy") == 0
    await handle.signal("delete")
    await handle.result()


async def test_the_probe_keeps_counting_during_a_repair_steps_wait_and_a_recovered_guest_is_running_at_once(
        stack: Stack) -> None:
    probe = {"tcp": {"port": 22}, "period": "10s", "failure_threshold": 1}
    handle = await _running(stack, health={"probe": probe}, timeouts={"health": "2m", "health_check_interval": "6h"})
    stack.emulator.add_guest_fault("vm1", "hang")  # a restart clears it
    restarted = await wait_for(stack.env, handle, lambda s: s.repair is not None and s.repair.action == "restart",
                               step=timedelta(seconds=5))
    assert restarted.repair is not None
    healed = await wait_for(stack.env, handle, _healed_after("restart"), step=timedelta(seconds=5))
    # Running at the first probes after the restart (a probe period, 10 s, apart), not at the next full check a
    # minute later, nor at the end of the step's wait (10 minutes).
    assert healed.last_operation is not None
    assert healed.last_operation.updated_at - restarted.repair.started_at <= timedelta(seconds=30)
    assert all(s.healthy for s in healed.health)
    await handle.signal("delete")
    await handle.result()
