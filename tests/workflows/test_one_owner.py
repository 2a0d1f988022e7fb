"""Two azmc installations (two Temporal servers, two installation ids) on one resource group: the second
never adopts, changes or deletes the first one's machine, and says so in its status. A machine azmc created
before owner tags is adopted by its workflow and tagged."""

from collections.abc import AsyncIterator
from typing import Any

import pytest

from activities.clients import build_clients
from activities.config import AzureConfig
from activities.nic import build_nic
from activities.vm_body import build_vm
from emulator.seed import SEED_RESOURCE_GROUP
from models.spec import MachineSpec
from models.status import Phase
from tests.support.emulator import EmulatorHandle
from tests.workflows.conftest import INSTALLATION, TOKEN
from tests.workflows.helpers import in_phase, spec_dict, start_machine, time_skipping_env, wait_for, workflow_stack
from tests.workflows.stack import Stack

OTHER = "other-installation"


@pytest.fixture
async def other(emulator: EmulatorHandle) -> AsyncIterator[Stack]:
    """Another installation: its own Temporal server and installation id, the same Azure resource group.
    A fresh server, not the shared one: the other installation's machines have the same workflow ids."""
    async with time_skipping_env() as env, workflow_stack(env, emulator, OTHER, TOKEN) as running:
        yield running


def _snapshot(stack: Stack) -> list[tuple[str, Any]]:
    return sorted((r["id"], r.get("tags")) for r in stack.machine_resources())


async def test_second_installation_reports_not_owned_and_leaves_the_machine_alone(stack: Stack, other: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id)
    first = await start_machine(stack.env.client, stack.task_queue, spec)
    running = await wait_for(stack.env, first, in_phase(Phase.RUNNING))
    before = _snapshot(stack)
    untagged = [rid.rsplit("/", 1)[-1] for rid, tags in before if not tags]
    assert untagged == ["vm1-os-disk"]  # it goes with its VM (deleteOption Delete): no owner tag needed
    assert all(tags["azmc-owner"] == f"{INSTALLATION}/machine/azmc-demo/vm1" for _, tags in before if tags)

    second = await start_machine(other.env.client, other.task_queue, spec)
    refused = await wait_for(other.env, second, lambda s: s.phase == Phase.CRASH_LOOP_BACK_OFF
                             and s.next_retry_at is not None)
    assert refused.last_error.startswith("NotOwned: VM vm1 belongs to azmc-owner=workflow-tests/machine/azmc-demo/vm1")
    assert f"azmc-owner={OTHER}/machine/azmc-demo/vm1" in refused.last_error
    assert "VM vm1" in refused.inventory.not_ours and not refused.inventory.has_vm
    assert _snapshot(stack) == before

    await second.signal("delete", {"reason": "installed twice by mistake"})
    gone = await second.result()
    assert gone.phase == Phase.DELETED and gone.inventory.is_empty
    assert sorted(gone.inventory.not_ours) == ["NIC vm1-nic", "VM vm1", "disk vm1-data-0-data-disk",
                                               "disk vm1-os-disk"]
    assert _snapshot(stack) == before  # nothing adopted, changed or deleted

    await first.signal("reconcile")
    still = await wait_for(stack.env, first, lambda s: s.last_operation is not None and
                           s.last_operation.description == "VM vm1 is running")
    assert still.phase == Phase.RUNNING and still.inventory.provider_id == running.inventory.provider_id
    await first.signal("delete")
    assert (await first.result()).phase == Phase.DELETED
    assert stack.machine_resources() == []


async def test_machine_created_before_owner_tags_is_adopted_and_tagged(stack: Stack) -> None:
    """Upgrading azmc: the running machine's resources (azmc-machine only) become this workflow's."""
    spec = MachineSpec.model_validate(spec_dict(subnet_id=stack.emulator.subnet_id))
    legacy = {"azmc-machine": "vm1", "azmc-pool": "workers"}
    clients = build_clients(AzureConfig(installation_id="old-azmc", subscription_id=stack.emulator.subscription_id,
                                        endpoint=stack.emulator.url, emulator_token=TOKEN))
    try:
        nic = await (await clients.network.network_interfaces.begin_create_or_update(
            SEED_RESOURCE_GROUP, "vm1-nic", build_nic(spec, legacy))).result()
        await (await clients.compute.virtual_machines.begin_create_or_update(
            SEED_RESOURCE_GROUP, "vm1", build_vm(spec, nic.id, legacy))).result()
    finally:
        await clients.close()
    handle = await start_machine(stack.env.client, stack.task_queue, spec.model_dump(mode="json"))
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    assert any("adopting the running VM vm1" in op.description for op in running.recent_operations)
    tags = {r["name"]: r["tags"] for r in stack.machine_resources()}
    assert sorted(tags) == ["vm1", "vm1-data-0-data-disk", "vm1-nic", "vm1-os-disk"]
    assert {t.get("azmc-owner") for t in tags.values()} == {f"{INSTALLATION}/machine/azmc-demo/vm1"}
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
    assert stack.machine_resources() == []


async def test_running_machine_whose_vm_another_owner_took_is_unknown_and_left_alone(stack: Stack) -> None:
    """Someone re-tags the VM as theirs: the next check says NotOwned in Unknown and changes nothing."""
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    clients = build_clients(AzureConfig(installation_id=OTHER, subscription_id=stack.emulator.subscription_id,
                                        endpoint=stack.emulator.url, emulator_token=TOKEN))
    foreign = {"azmc-machine": "vm1", "azmc-owner": f"{OTHER}/machine/azmc-demo/vm1"}
    try:
        vms = clients.compute.virtual_machines
        ours = (await vms.get(SEED_RESOURCE_GROUP, "vm1")).tags
        await (await vms.begin_update(SEED_RESOURCE_GROUP, "vm1", {"tags": foreign})).result()
        await handle.signal("reconcile")
        unknown = await wait_for(stack.env, handle, in_phase(Phase.UNKNOWN))
        assert unknown.last_error.startswith("NotOwned: VM vm1")
        assert (await vms.get(SEED_RESOURCE_GROUP, "vm1")).tags == foreign  # left alone
        await (await vms.begin_update(SEED_RESOURCE_GROUP, "vm1", {"tags": ours})).result()
    finally:
        await clients.close()
    await handle.signal("reconcile")
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
