"""A machine created in a resource group that does not exist is Failed at once, with Azure's message: azmc creates
no resource groups, so no backoff would ever succeed until an operator creates it; `reconcile` then creates the
machine."""

from datetime import timedelta

from azure.mgmt.resource.resources import models as rm

from models.naming import workflow_id
from models.status import MachineStatus, Phase, Stage
from tests.emulator.builders import LOCATION
from tests.workflows.helpers import in_phase, record_history, spec_dict, wait_for
from tests.workflows.stack import Stack
from tests.workflows.sweeping import azure

GROUP = "never-made"


async def test_a_machine_in_a_resource_group_that_does_not_exist_fails_at_once_with_azures_message(
        stack: Stack) -> None:
    spec = spec_dict("vm1", subnet_id=stack.emulator.subnet_id, resource_group=GROUP,
                     timeouts={"creation": "2h"})
    handle = await stack.env.client.start_workflow("MachineLifecycle", spec, id=workflow_id(GROUP, "vm1"),
                                                   task_queue=stack.task_queue, result_type=MachineStatus)
    failed = await wait_for(stack.env, handle, in_phase(Phase.FAILED, Phase.RUNNING),
                            virtual_limit=timedelta(minutes=1))
    assert failed.phase == Phase.FAILED and failed.attempts == 1
    assert f"ResourceGroupNotFound: Resource group '{GROUP}' could not be found" in failed.last_error
    assert failed.last_operation is not None and failed.last_operation.stage == Stage.CREATE
    assert failed.last_operation.description.startswith(f"resource group {GROUP} does not exist")
    assert failed.next_retry_at is None  # nothing is retried: an operator creates the group, then reconciles
    assert stack.emulator.requests()["by_operation"].get("virtualMachines.put", 0) == 0

    azure(stack).resources.resource_groups.create_or_update(GROUP, rm.ResourceGroup(location=LOCATION))
    await handle.signal("reconcile")
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING), virtual_limit=timedelta(minutes=5))
    assert running.attempts == 1 and running.last_error == ""
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
    await record_history(handle, "resource_group_missing_fails_at_once")
