"""The fleet sweep reads every VM's Resource Health in its one survey and sends `reconcile` (check_only, with
the reason) to machines whose health Azure contradicts: a Running machine whose VM Azure reports Unavailable,
an Unhealthy one whose VM is Available again. A region-wide outage must not become a wave of re-creations."""

from datetime import timedelta

from models.status import MachineStatus, Phase
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, status_of, wait_for
from tests.workflows.stack import Stack
from tests.workflows.sweeping import running_machine, sweep

SPARSE = {"health_check_interval": "6h"}  # the machine's own check would come hours later: only the sweep tells
HOST_DOWN = "The host of this virtual machine failed."
OUTAGE = "An Azure service issue is making this virtual machine unavailable."
PLATFORM = "Platform Initiated"
OUTAGE_MINUTES = 75


def _resource_health(status: MachineStatus) -> tuple[str, str]:
    said = next(s for s in status.health if s.name == "resource_health")
    return said.value, said.reason


def _count(stack: Stack, operation: str) -> int:
    return stack.emulator.requests()["by_operation"].get(f"virtualMachines.{operation}", 0)


async def test_a_platform_outage_is_sent_reconcile_by_one_sweep_and_the_machine_goes_unhealthy(stack: Stack) -> None:
    handle = await running_machine(stack, "vm1", timeouts=SPARSE, data_disks=[])
    stack.emulator.force_resource_health(["vm1"], "Unavailable", PLATFORM, HOST_DOWN)

    report = await sweep(stack, record="fleet_sweep_signals_unavailable_vm")
    assert [(d.workflow_id, d.reason) for d in report.signalled] == [
        ("machine/azmc-demo/vm1", f"Resource Health Unavailable: {HOST_DOWN}")]
    assert report.graph_pages == 1
    sick = await wait_for(stack.env, handle, in_phase(Phase.UNHEALTHY), virtual_limit=timedelta(minutes=2))
    value, reason = _resource_health(sick)
    assert value == "Unavailable" and HOST_DOWN in reason and PLATFORM in reason
    assert HOST_DOWN in sick.last_error
    # The sweep's reconcile is check_only: the ladder's first wait (timeouts.health) is kept, no restart yet.
    assert sick.repair is not None and sick.repair.step == -1 and _count(stack, "restart") == 0
    assert (await sweep(stack)).signalled == []  # it knows now: no signal a minute
    await handle.signal("delete")
    await handle.result()
    await record_history(handle, "unavailable_vm_reconciled_by_sweep")


async def test_a_region_wide_outage_re_creates_no_vm_and_the_sweep_brings_the_fleet_back(stack: Stack) -> None:
    names = [f"vm{i}" for i in range(3)]  # three machines make the wave: each is signalled by the same sweep
    handles = [await start_machine(stack.env.client, stack.task_queue,
                                   spec_dict(name, subnet_id=stack.emulator.subnet_id, pool="", data_disks=[],
                                             timeouts=SPARSE)) for name in names]
    for handle in handles:
        await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    assert _count(stack, "put") == len(names)
    stack.emulator.force_resource_health(names, "Unavailable", PLATFORM)  # the whole region, at once

    first = await sweep(stack)
    assert sorted(d.reason for d in first.signalled) == [f"Resource Health Unavailable: {OUTAGE}"] * len(names)
    reads = stack.emulator.requests()["by_operation"].get("availabilityStatuses.get", 0)
    later = []
    # 75 virtual minutes, a sweep every 5: the ladder reaches its held re-creation after about 45 (its waits: 10, 10
    # and 20 minutes, docs/health.md) and holds it for the last half hour.
    for _ in range(OUTAGE_MINUTES // 5):
        for _ in range(5):  # a minute at a time: each Unhealthy machine reads Azure every minute
            await stack.env.sleep(timedelta(minutes=1))
        later += (await sweep(stack)).signalled
    assert later == []  # Unhealthy and still Unavailable: nothing to tell them
    reads = stack.emulator.requests()["by_operation"].get("availabilityStatuses.get", 0) - reads
    # One read a minute per machine while Unhealthy, never a loop once the ladder is held.
    assert reads <= len(names) * (OUTAGE_MINUTES + 10)

    assert _count(stack, "put") == len(names) and _count(stack, "delete") == 0  # no VM re-created
    for handle in handles:
        status = await status_of(handle)
        assert status.phase == Phase.UNHEALTHY and _resource_health(status)[0] == "Unavailable"
        assert "Azure reports a platform-initiated outage: not re-created" in status.recent_operations[-1].description

    stack.emulator.clear_resource_health()  # Azure healed the region
    back = await sweep(stack)
    assert sorted(d.reason for d in back.signalled) == ["Resource Health Available again"] * len(names)
    for handle in handles:
        healed = await wait_for(stack.env, handle, in_phase(Phase.RUNNING), virtual_limit=timedelta(minutes=2))
        assert healed.repair is None and all(s.healthy for s in healed.health)
    assert _count(stack, "put") == len(names) and _count(stack, "delete") == 0
