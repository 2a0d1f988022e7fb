"""On a dev server (the sweep lists open machines from visibility there): a machine whose resource group
was deleted is signalled once, goes Unknown with the reason, and is never signalled again for it."""

from datetime import timedelta

from temporalio.client import Client

from models.search_attributes import AZMC_PHASE
from models.status import Phase
from tests.workflows.helpers import wait_for
from tests.workflows.stack import Stack
from tests.workflows.sweeping import azure, sweep
from tests.workflows.test_resource_group_gone import delete_group, machine_in_its_own_group


async def _listed_phase(client: Client, wf_id: str) -> str:
    async for execution in client.list_workflows(f'WorkflowId = "{wf_id}"'):
        return execution.typed_search_attributes.get(AZMC_PHASE) or ""
    return ""


async def _history_length(stack: Stack, wf_id: str) -> int:
    return len([event async for event in stack.env.client.get_workflow_handle(wf_id).fetch_history_events()])


async def test_a_machine_whose_resource_group_is_gone_is_signalled_once_not_every_sweep(dev_stack: Stack) -> None:
    stack, clients = dev_stack, azure(dev_stack)
    handle = await machine_in_its_own_group(stack, clients)  # its own check only every 6 hours
    delete_group(clients)

    first = await sweep(stack)
    assert [(d.workflow_id, d.reason) for d in first.signalled] == [(handle.id, "VM missing")]
    gone = await wait_for(stack.env, handle, lambda s: s.phase == Phase.UNKNOWN, step=timedelta(seconds=0.2),
                          virtual_limit=timedelta(seconds=30))
    assert "ResourceGroupNotFound" in gone.last_error
    for _ in range(150):  # visibility follows the upsert shortly after
        if await _listed_phase(stack.env.client, handle.id) == Phase.UNKNOWN:
            break
        await stack.env.sleep(timedelta(seconds=0.2))
    assert await _listed_phase(stack.env.client, handle.id) == Phase.UNKNOWN

    length = await _history_length(stack, handle.id)
    for _ in range(3):
        again = await sweep(stack)
        assert again.machines_seen == 1 and again.drifted == 0 and again.signalled == []
    assert await _history_length(stack, handle.id) == length
    assert (await handle.query("status")).get("phase") == Phase.UNKNOWN
    await handle.signal("delete")
    assert (await handle.result()).phase == Phase.DELETED
