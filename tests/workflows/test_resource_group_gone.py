"""A machine whose resource group is deleted (with everything in it) is Unknown with the reason, and is
re-created only once the group exists again: azmc never creates resource groups."""

from datetime import timedelta

from azure.mgmt.resource.resources import models as rm
from temporalio.client import WorkflowHandle

from models.naming import workflow_id
from models.status import MachineStatus, Phase, Stage
from tests.emulator.builders import LOCATION
from tests.support.sdk import SyncClients
from tests.workflows.helpers import described, in_phase, record_history, spec_dict, status_of, wait_for
from tests.workflows.stack import Stack
from tests.workflows.sweeping import azure

GROUP = "doomed"


async def machine_in_its_own_group(stack: Stack, clients: SyncClients, **timeouts: str) -> WorkflowHandle:
    """vm1 Running in resource group `doomed` (its subnet stays in the seeded group)."""
    clients.resources.resource_groups.create_or_update(GROUP, rm.ResourceGroup(location=LOCATION))
    spec = spec_dict("vm1", subnet_id=stack.emulator.subnet_id, resource_group=GROUP, timeouts=timeouts)
    handle = await stack.env.client.start_workflow("MachineLifecycle", spec, id=workflow_id(GROUP, "vm1"),
                                                   task_queue=stack.task_queue, result_type=MachineStatus)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    return handle


def _creations(stack: Stack) -> int:
    counts = stack.emulator.requests()["by_operation"]
    return counts.get("virtualMachines.put", 0) + counts.get("networkInterfaces.put", 0)


def delete_group(clients: SyncClients) -> None:
    clients.resources.resource_groups.begin_delete(GROUP, polling_interval=0.01).result()


async def test_a_deleted_resource_group_makes_the_machine_unknown_and_nothing_is_recreated_until_it_is_back(
        stack: Stack) -> None:
    clients = azure(stack)
    handle = await machine_in_its_own_group(stack, clients, health_check_interval="10m", health="10m")
    delete_group(clients)

    await handle.signal("reconcile")  # what the fleet sweep sends when the graph shows the VM missing
    gone = await wait_for(stack.env, handle, in_phase(Phase.UNKNOWN), virtual_limit=timedelta(minutes=1))
    assert "ResourceGroupNotFound" in gone.last_error and f"Resource group '{GROUP}'" in gone.last_error
    assert gone.last_operation is not None and gone.last_operation.stage == Stage.HEALTH_CHECK
    assert f"resource group {GROUP} does not exist" in gone.last_operation.description
    assert gone.next_retry_at == gone.last_operation.updated_at + timedelta(minutes=10)
    # `azmc describe` shows the agent's last reading as what it was, with its time, not as current.
    assert gone.health_read_at is not None and gone.health_read_at < gone.last_operation.updated_at
    shown = described(gone)
    heading = f"not current (resource group {GROUP} does not exist): as read at {gone.health_read_at:%Y-%m-%d %H:%M:%S}"
    assert heading in shown and shown.index(heading) < shown.index("vm_agent Ready")

    # Checks every 10 minutes for an hour, far past the health timeout: still Unknown, no creation attempted. The sleep
    # ends between two checks: a `reconcile` sent as the next check's timer fires makes the workflow cancel a timer the
    # time-skipping server is firing, and that server then leaves the workflow task started forever (sdk-java#3088).
    writes = _creations(stack)
    await stack.env.sleep(timedelta(hours=1, minutes=5))
    later = await status_of(handle)
    assert later.phase == Phase.UNKNOWN and _creations(stack) == writes
    assert later.last_operation is not None and later.last_operation.updated_at > gone.last_operation.updated_at
    assert "ResourceGroupNotFound" in later.last_error
    assert stack.machine_resources("vm1") == []

    # The group is back (empty): the VM is missing, and re-created after the health timeout, as always.
    clients.resources.resource_groups.create_or_update(GROUP, rm.ResourceGroup(location=LOCATION))
    await handle.signal("reconcile")
    missing = await wait_for(stack.env, handle, lambda s: "VM missing" in s.last_error,
                             virtual_limit=timedelta(minutes=1))
    assert missing.phase == Phase.UNKNOWN
    back = await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and s.inventory.has_vm,
                          step=timedelta(minutes=1), virtual_limit=timedelta(minutes=30))
    assert back.inventory.node_name == "vm1" and _creations(stack) > writes
    assert {(r["type"].split("/")[-1], r["resourceGroup"]) for r in stack.machine_resources("vm1")} >= {
        ("virtualMachines", GROUP), ("networkInterfaces", GROUP)}

    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
    await record_history(handle, "resource_group_gone_unknown_until_back")


async def test_a_machine_whose_resource_group_is_gone_is_deleted_at_once(stack: Stack) -> None:
    clients = azure(stack)
    handle = await machine_in_its_own_group(stack, clients)
    delete_group(clients)
    await handle.signal("reconcile")
    await wait_for(stack.env, handle, in_phase(Phase.UNKNOWN), virtual_limit=timedelta(minutes=1))
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
