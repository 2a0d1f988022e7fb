"""update_spec: tag, pool and timeout changes reach the running machine; a change that needs a new VM is
refused synchronously, naming the fields and what to do instead."""

from datetime import timedelta
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from activities.clients import build_clients
from activities.config import AzureConfig
from emulator.seed import SEED_RESOURCE_GROUP
from models.errors import ErrorType
from models.search_attributes import AZMC_POOL
from models.spec_changes import SpecUpdate
from models.status import Phase
from tests.workflows.conftest import INSTALLATION, TOKEN
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, status_of, wait_for
from tests.workflows.stack import Stack

OWNER = f"{INSTALLATION}/machine/azmc-demo/vm1"


async def update(handle: WorkflowHandle, spec: dict[str, Any]) -> SpecUpdate:
    return await handle.execute_update("update_spec", spec, result_type=SpecUpdate)


async def refused(handle: WorkflowHandle, spec: Any) -> str:
    with pytest.raises(WorkflowUpdateFailedError) as failure:
        await handle.execute_update("update_spec", spec, result_type=SpecUpdate)
    cause = failure.value.cause
    assert isinstance(cause, ApplicationError) and cause.type == ErrorType.INVALID_SPEC
    return cause.message


async def _tag_out_of_band(stack: Stack, nic: str, key: str, value: str) -> None:
    """A tag someone else sets (Azure Policy, a person): not azmc's to remove."""
    clients = build_clients(AzureConfig(installation_id="someone-else", subscription_id=stack.emulator.subscription_id,
                                        endpoint=stack.emulator.url, emulator_token=TOKEN))
    try:
        nics = clients.network.network_interfaces
        body = await nics.get(SEED_RESOURCE_GROUP, nic)
        await nics.update_tags(SEED_RESOURCE_GROUP, nic, {"tags": {**body.tags, key: value}})
    finally:
        await clients.close()


def tags_by_name(stack: Stack) -> dict[str, dict[str, str]]:
    return {r["name"]: r["tags"] for r in stack.machine_resources()}


async def running(stack: Stack, **changes: Any) -> tuple[WorkflowHandle, dict[str, Any]]:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, tags={"team": "platform", "cost": "42"}, **changes)
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    return handle, spec


async def test_tag_and_pool_changes_are_applied_in_place(stack: Stack) -> None:
    handle, spec = await running(stack)
    vm_id = (await status_of(handle)).inventory.provider_id
    await _tag_out_of_band(stack, "vm1-nic", "policy", "kept")

    answer = await update(handle, {**spec, "tags": {"team": "web", "env": "dev"}, "pool": "web"})
    assert answer.changed == ["tags.cost", "tags.env", "tags.team", "pool"]
    assert sorted(answer.tagged) == ["NIC vm1-nic", "VM vm1", "disk vm1-data-0-data-disk", "disk vm1-os-disk"]
    expected = {"team": "web", "env": "dev", "azmc-machine": "vm1", "azmc-pool": "web", "azmc-owner": OWNER}
    tags = tags_by_name(stack)
    assert tags.pop("vm1-nic") == {**expected, "policy": "kept"}
    assert tags == {name: expected for name in ("vm1", "vm1-os-disk", "vm1-data-0-data-disk")}
    description = await handle.describe()
    assert description.typed_search_attributes.get(AZMC_POOL) == "web"
    status = await status_of(handle)
    assert status.phase == Phase.RUNNING and status.inventory.provider_id == vm_id  # the same VM, not a new one
    assert status.pool == "web"
    # The same spec again changes nothing.
    again = await update(handle, {**spec, "tags": {"team": "web", "env": "dev"}, "pool": "web"})
    assert again.changed == [] and again.message.startswith("unchanged")
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
    await record_history(handle, "update_spec_tags_in_place")


@pytest.mark.parametrize(("changes", "named"), [
    ({"vm_size": "Standard_D4s_v3"}, "vm_sizes cannot change on a running machine (vm_sizes: azmc does not resize"),
    ({"image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server", "version": "24.04.1"}},
     "image.version cannot change"),
    ({"data_disks": [{"name": "data", "lun": 0, "size_gb": 16}], "zone": "2"}, "data_disks, zones cannot change"),
    ({"admin_username": "ops", "tags": {"team": "web"}}, "admin_username cannot change"),
    ({"name": "vm2"}, "machine azmc-demo/vm2 has its own workflow"),
    ({"os_disk": {"size_gb": -1}}, "os_disk.size_gb"),  # not a valid spec at all
])
async def test_changes_that_need_a_new_vm_are_refused_with_what_to_do(stack: Stack, changes: dict[str, Any],
                                                                       named: str) -> None:
    handle, spec = await running(stack)
    before, requests = tags_by_name(stack), stack.emulator.requests()["total"]
    message = await refused(handle, {**spec, **changes})
    assert named in message, message
    if "cannot change" in message:
        assert "azmc delete azmc-demo/vm1 --wait" in message and "apply the new spec" in message
    assert tags_by_name(stack) == before and stack.emulator.requests()["total"] == requests
    # Refused by the validator: nothing in the history, and the spec is the one it had.
    events = [event.event_type async for event in handle.fetch_history_events()]
    assert EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED not in events
    assert (await update(handle, spec)).message.startswith("unchanged")
    await handle.signal("delete")
    await handle.result()


async def test_tags_changed_during_creation_reach_azure_once_it_runs(stack: Stack) -> None:
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                             stage="operation", times=1)
    # The one offering is refused for 1 h (the shared memory): a creation timeout that outlasts that wait.
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, tags={"team": "platform"}, timeouts={"creation": "2h"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    await wait_for(stack.env, handle, in_phase(Phase.CRASH_LOOP_BACK_OFF))
    answer = await update(handle, {**spec, "tags": {"team": "web"}})
    assert answer.changed == ["tags.team"] and answer.tagged == []
    assert "tags reach Azure once it runs" in answer.message
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING), step=timedelta(minutes=1))
    await wait_for(stack.env, handle, lambda s: s.last_operation is not None
                   and s.last_operation.description.startswith("tagged"))
    assert {tags["team"] for tags in tags_by_name(stack).values()} == {"web"}
    await handle.signal("delete")
    await handle.result()


async def test_timeouts_change_without_touching_azure(stack: Stack) -> None:
    handle, spec = await running(stack)
    requests = stack.emulator.requests()["total"]
    answer = await update(handle, {**spec, "timeouts": {"health_check_interval": "1m"}})
    assert answer.changed == ["timeouts.health_check_interval"] and answer.tagged == []
    assert stack.emulator.requests()["total"] == requests
    await handle.signal("delete")
    await handle.result()


async def test_update_while_deleting_is_refused(stack: Stack) -> None:
    stack.emulator.add_fault("networkInterfaces.delete", name="vm1-nic", status=400, code="NicInUse",
                             message="in use", times=-1)
    handle, spec = await running(stack)
    await handle.signal("delete", {"force": True})
    await wait_for(stack.env, handle, in_phase(Phase.TERMINATING))
    assert "being deleted" in await refused(handle, {**spec, "tags": {"team": "web"}})
    stack.emulator.clear_faults()
    await handle.result()
