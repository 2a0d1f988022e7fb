"""`azmc apply` of a machine that exists: never a second workflow, never "unchanged" when the spec differs."""

import pytest

from cli.machines import MachineError, apply
from models.spec import MachineSpec
from models.status import MachineStatus, Phase
from tests.workflows.helpers import in_phase, spec_dict, wait_for
from tests.workflows.stack import Stack


async def test_apply_again_updates_in_place_or_refuses_and_after_delete_starts_anew(stack: Stack) -> None:
    client = stack.env.client
    spec = MachineSpec.model_validate(spec_dict(subnet_id=stack.emulator.subnet_id, tags={"team": "a"}))
    first = await apply(client, spec, stack.task_queue)
    assert first.started and first.line(spec) == "machine azmc-demo/vm1 created (workflow machine/azmc-demo/vm1)"
    handle = client.get_workflow_handle(first.workflow_id, result_type=MachineStatus)
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    run_id = (await handle.describe()).run_id

    same = await apply(client, spec, stack.task_queue)
    assert not same.started and same.line(spec).startswith("machine azmc-demo/vm1 unchanged")
    retagged = await apply(client, spec.model_copy(update={"tags": {"team": "b"}}), stack.task_queue)
    assert not retagged.started and retagged.update is not None and retagged.update.changed == ["tags.team"]
    assert retagged.line(spec).startswith("machine azmc-demo/vm1 updated in place; tagged ")
    with pytest.raises(MachineError) as refused:
        await apply(client, spec.model_copy(update={"vm_sizes": ["Standard_D8s_v3"]}), stack.task_queue)
    assert "vm_sizes cannot change on a running machine" in str(refused.value)
    assert (await handle.describe()).run_id == run_id  # one workflow all along

    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
    again = await apply(client, spec, stack.task_queue)  # a Deleted machine may be applied again
    assert again.started
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    await handle.signal("delete")
    await handle.result()
