"""The fleet sweep collects orphans (resources whose machine workflow is gone) and nothing else."""

import asyncio
from datetime import timedelta

from activities.config import AzureConfig
from activities.driver import AzureDriver
from models.spec import MachineSpec
from models.sweep import SkipReason
from tests.emulator.builders import RG, nic_body
from tests.workflows.helpers import machine_activity_env, spec_dict
from tests.workflows.stack import Stack
from tests.workflows.sweeping import GRACE, azure, names, running_machine, sweep


async def test_a_terminated_machine_is_collected_after_the_grace_period_and_not_before(stack: Stack) -> None:
    handle = await running_machine(stack)
    left = names(stack, "vm1")
    assert len(left) == 4, left  # VM, NIC, OS disk, data disk
    await handle.terminate("operator terminated the workflow")

    early = await sweep(stack)
    assert early.orphans_found == 4 and early.deleted == []
    assert early.skipped_by_reason() == {SkipReason.YOUNGER_THAN_GRACE.value: 4}
    assert early.graph_pages == 1 and early.drifted == 0
    assert names(stack, "vm1") == left

    await stack.env.sleep(GRACE - timedelta(minutes=2))
    late = await sweep(stack)
    assert late.deleted == [] and late.skipped_by_reason() == {SkipReason.YOUNGER_THAN_GRACE.value: 4}
    assert names(stack, "vm1") == left

    await stack.env.sleep(timedelta(minutes=3))
    report = await sweep(stack, record="fleet_sweep_collects_terminated_machine")
    assert report.deleted[0].startswith("VM vm1 ")  # the VM first, then the rest
    assert sorted(report.deleted) == sorted(f"{kind} {name} (machine/azmc-demo/vm1)" for kind, name in [
        ("VM", "vm1"), ("NIC", "vm1-nic"), ("disk", "vm1-os-disk"), ("disk", "vm1-data-0-data-disk")])
    assert names(stack, "vm1") == []
    assert (await sweep(stack)).orphans_found == 0


async def test_machines_creating_or_in_crash_loop_are_never_touched(stack: Stack) -> None:
    stack.emulator.add_fault("virtualMachines.put", name="vm2", status=409, code="AllocationFailed",
                             stage="operation", times=-1)
    stack.emulator.add_fault("networkInterfaces.delete", name="vm2-nic", status=400, code="NicInUse", times=-1)
    crashing = await stack.env.client.start_workflow(
        "MachineLifecycle", spec_dict("vm2", subnet_id=stack.emulator.subnet_id),
        id="machine/azmc-demo/vm2", task_queue=stack.task_queue)
    stack.emulator.add_fault("virtualMachines.put", name="vm3", status=0, delay_s=8)
    # Another size: vm2's refused one is skipped by every machine (the shared memory of refused offerings).
    creating = await stack.env.client.start_workflow(
        "MachineLifecycle", spec_dict("vm3", subnet_id=stack.emulator.subnet_id, vm_size="Standard_D4s_v3"),
        id="machine/azmc-demo/vm3", task_queue=stack.task_queue)
    for _ in range(100):
        if any(r["name"] == "vm3-nic" for r in stack.emulator.resources("networkInterfaces")):
            break
        await asyncio.sleep(0.2)
    assert (await creating.query("status")).get("phase") == "Creating"
    report = await sweep(stack, orphan_grace=timedelta(0))
    assert report.signalled == [] and report.deleted == [] and report.orphans_found == 0
    assert any(r["name"] == "vm3-nic" for r in stack.emulator.resources())

    await stack.env.sleep(timedelta(minutes=12))  # creation gives up after 20 minutes
    assert (await crashing.query("status")).get("phase") == "CrashLoopBackOff"
    before = names(stack, "vm2")
    assert before, "the crash-looping machine's NIC is left (Azure refuses its delete)"
    report = await sweep(stack, orphan_grace=timedelta(0))
    assert report.signalled == [] and report.deleted == [] and report.orphans_found == 0
    assert names(stack, "vm2") == before
    for handle in (crashing, creating):
        await handle.signal("delete")


async def test_another_installations_untagged_and_legacy_resources_are_never_touched(stack: Stack) -> None:
    other = await AzureDriver.open(AzureConfig(installation_id="another-installation",
                                               subscription_id=stack.emulator.subscription_id,
                                               endpoint=stack.emulator.url, emulator_token="t"))
    try:
        spec = MachineSpec.model_validate(spec_dict("vm7", subnet_id=stack.emulator.subnet_id))
        await machine_activity_env("vm7").run(other.ensure_nic, spec)  # its workflow is in its own namespace
    finally:
        await other.close()
    clients = azure(stack)
    clients.network.network_interfaces.begin_create_or_update(RG, "stray-nic", nic_body(
        stack.emulator.subnet_id, {"team": "not-azmc"})).result()
    clients.network.network_interfaces.begin_create_or_update(RG, "old-nic", nic_body(
        stack.emulator.subnet_id, {"azmc-machine": "old"})).result()  # an azmc from before owner tags
    await stack.env.sleep(GRACE * 3)

    report = await sweep(stack, orphan_grace=timedelta(0))
    assert report.deleted == [] and report.orphans_found == 0
    assert report.model_dump()["machines_seen"] == 1  # the legacy one: reported, not collected
    kept = {r["name"] for r in stack.emulator.resources("networkInterfaces")}
    assert {"vm7-nic", "stray-nic", "old-nic"} <= kept


async def test_graph_lag_longer_than_the_grace_cannot_cause_a_wrong_deletion(stack: Stack) -> None:
    handle = await running_machine(stack)
    await handle.terminate("operator terminated the workflow")
    await stack.env.sleep(GRACE + timedelta(minutes=5))
    # The graph now shows Azure as it was 8 s ago (the grace, in Temporal's time, has long passed) ...
    await asyncio.sleep(9)
    stack.emulator.settings(time_scale=1, index_lag_s=8)
    # ... and meanwhile someone else took the resources over: the graph still says they are ours.
    clients = azure(stack)
    foreign = {"azmc-machine": "vm1", "azmc-owner": "another-installation/machine/azmc-demo/vm1"}
    clients.compute.virtual_machines.begin_update(RG, "vm1", {"tags": foreign}).result()
    clients.network.network_interfaces.update_tags(RG, "vm1-nic", {"tags": foreign})
    for disk in ("vm1-os-disk", "vm1-data-0-data-disk"):
        clients.compute.disks.begin_update(RG, disk, {"tags": foreign}).result()

    report = await sweep(stack)
    assert report.orphans_found == 4, "the lagging graph still shows the resources as this installation's"
    assert report.deleted == [] and report.skipped_by_reason() == {SkipReason.NOT_OURS.value: 4}
    assert len(names(stack, "vm1")) == 4


async def test_a_machine_applied_again_after_the_grace_is_never_collected(stack: Stack) -> None:
    handle = await running_machine(stack)
    await handle.terminate("operator terminated the workflow")
    await stack.env.sleep(GRACE + timedelta(minutes=5))
    again = await running_machine(stack)  # `azmc apply` of the same spec: a new run adopts the resources
    report = await sweep(stack, orphan_grace=timedelta(0))
    assert report.deleted == [] and report.orphans_found == 0 and len(names(stack, "vm1")) == 4
    await again.signal("delete")


async def test_the_safety_cap_stops_a_mass_deletion_and_says_why(stack: Stack) -> None:
    first, second = await running_machine(stack, "vm1"), await running_machine(stack, "vm2", data_disks=[])
    await first.terminate("gone")
    await second.terminate("gone")
    await stack.env.sleep(GRACE + timedelta(minutes=1))

    capped = await sweep(stack, max_orphan_deletions=6)
    assert capped.deleted == [] and "7 orphaned resources to delete, more than the safety cap of 6" in capped.capped
    assert capped.skipped_by_reason() == {SkipReason.OVER_CAP.value: 7}
    assert len(names(stack, "vm1")) == 4 and len(names(stack, "vm2")) == 3

    assert len((await sweep(stack, max_orphan_deletions=7)).deleted) == 7
    assert names(stack, "vm1") == [] and names(stack, "vm2") == []


async def test_a_terminated_machines_public_ip_is_collected_after_its_nic(stack: Stack) -> None:
    """Spec `public_ip` (issue 28): the orphan's public IP is found like its NIC and goes after it."""
    handle = await running_machine(stack, public_ip={})
    left = names(stack, "vm1")
    assert "publicIPAddresses vm1-pip" in left and len(left) == 5, left
    await handle.terminate("operator terminated the workflow")
    early = await sweep(stack)
    assert early.orphans_found == 5 and early.deleted == []
    await stack.env.sleep(GRACE + timedelta(minutes=1))
    report = await sweep(stack)
    assert report.deleted[-1] == "public IP vm1-pip (machine/azmc-demo/vm1)"  # after the VM took its NIC along
    assert "VM vm1 (machine/azmc-demo/vm1)" in report.deleted
    assert names(stack, "vm1") == []
    assert (await sweep(stack)).orphans_found == 0
