"""adopt_pool_machines: the open machine workflows a pool's earlier life started, taken back by its new life.

Candidates come from Temporal's visibility (every open MachineLifecycle with the pool's AzmcPool and
AzmcResourceGroup, set when the pool started it: found whether or not it made anything in Azure yet); a server that
cannot list (the time-skipping test server) lists its open MachineLifecycle workflows by type instead, read by
their ids. Anyone may start a workflow with those attributes, so each is confirmed by a describe, which the server
answers from the workflow's own state: it runs, the pool's workflow id started it (a machine that continued as new
keeps its parent), and it runs on the pool's task queue (the workers of one installation; another installation's
machines run on its own). Then its `status` (phase, preserved) and its spec (its run's input), compared with the
pool's template (models/pool_adoption.py); one that differs only in what a running machine takes in place is sent
the template's spec (update_spec).
"""

import asyncio
from typing import Any

from temporalio import activity
from temporalio.api.filter.v1 import WorkflowTypeFilter
from temporalio.api.workflowservice.v1 import ListOpenWorkflowExecutionsRequest
from temporalio.client import Client, WorkflowExecutionDescription, WorkflowExecutionStatus, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from models.arm_names import POOL_NAME, RESOURCE_GROUP_NAME
from models.naming import is_pool_machine_name, machine_of, workflow_id
from models.pool import PoolTemplate
from models.pool_adoption import own_revision, spec_of_run_input, verdict
from models.pool_io import AdoptedMachine, Adoption, AdoptionInput
from models.spec import MachineSpec
from models.spec_changes import SpecUpdate
from models.status import MachineStatus, Phase
from models.temporal_api import STATUS_QUERY, UPDATE_SPEC, WORKFLOW_TYPE

AT_ONCE = 20  # machines read at once: each is a describe, a query and a history page
REFUSALS_KEPT = 10
VISIBILITY_PAGE = 1000
UNREAD = "unread"  # the revision of a machine whose spec could not be read (a key this worker lacks): rolled


def open_machines_query(resource_group: str, pool: str) -> str:
    """Both names pass the spec's name rules, which allow no quote or backslash: nothing else reaches the query."""
    for rule, value in ((RESOURCE_GROUP_NAME, resource_group), (POOL_NAME, pool)):
        if rule.problem(value):
            raise ValueError(f"{rule.kind} {value!r} is not valid: {rule.problem(value)}")
    return (f"WorkflowType = '{WORKFLOW_TYPE}' AND ExecutionStatus = 'Running' AND AzmcPool = '{pool}' "
            f"AND AzmcResourceGroup = '{resource_group}'")


async def open_machine_names(client: Client, resource_group: str, pool: str) -> list[str]:
    """The names of the open machine workflows listed under the pool."""
    names = []
    try:
        async for execution in client.list_workflows(open_machines_query(resource_group, pool),
                                                     page_size=VISIBILITY_PAGE):
            place = machine_of(execution.id)
            if place is not None:
                names.append(place[1])
        return names
    except RPCError as error:
        if error.status != RPCStatusCode.UNIMPLEMENTED:
            raise
    request = ListOpenWorkflowExecutionsRequest(namespace=client.namespace, maximum_page_size=VISIBILITY_PAGE,
                                                type_filter=WorkflowTypeFilter(name=WORKFLOW_TYPE))
    while True:
        page = await client.workflow_service.list_open_workflow_executions(request)
        for info in page.executions:
            place = machine_of(info.execution.workflow_id)
            if place is not None and place[0] == resource_group and is_pool_machine_name(pool, place[1]):
                names.append(place[1])
        if not page.next_page_token:
            return names
        request.next_page_token = page.next_page_token


def _not_its_own(inp: AdoptionInput, name: str, found: WorkflowExecutionDescription) -> str:
    """Why the pool does not adopt this machine's workflow ("" when it does)."""
    if found.status != WorkflowExecutionStatus.RUNNING:
        return f"{name}: its workflow ended"
    if found.workflow_type != WORKFLOW_TYPE:
        return f"{name}: a {found.workflow_type} workflow, not a machine's"
    if found.parent_id != inp.pool_workflow_id:
        return f"{name}: started by {found.parent_id or 'a client'}, not by the pool"
    if found.task_queue != inp.task_queue:
        return (f"{name}: runs on task queue {found.task_queue!r}, not the pool's {inp.task_queue!r} "
                "(another installation's)")
    return ""


async def _spec(client: Client, wf_id: str, run_id: str | None) -> MachineSpec | None:
    """The spec the machine's current run started with (its fields that need a new VM never change in a run)."""
    async for event in client.get_workflow_handle(wf_id, run_id=run_id).fetch_history_events(page_size=1):
        values = await client.data_converter.decode(event.workflow_execution_started_event_attributes.input.payloads)
        return spec_of_run_input(values[0]) if len(values) == 1 else None
    return None


async def _send_in_place(client: Client, wf_id: str, wanted: dict[str, Any]) -> str:
    """"" once the machine took the template's spec, else why not."""
    try:
        await client.get_workflow_handle(wf_id).execute_update(UPDATE_SPEC, wanted, result_type=SpecUpdate)
    except WorkflowUpdateFailedError as err:
        return str(err.cause or err)
    return ""


async def adopt_one(client: Client, inp: AdoptionInput, template: PoolTemplate, name: str) -> AdoptedMachine | str:
    """The machine as the pool adopts it, or why it does not (one line)."""
    wf_id = workflow_id(inp.resource_group, name)
    try:
        found = await client.get_workflow_handle(wf_id).describe()
        refused = _not_its_own(inp, name, found)
        if refused:
            return refused
        status = await client.get_workflow_handle(wf_id).query(STATUS_QUERY, result_type=MachineStatus)
        if status.pool != inp.pool:  # an operator moved it to another pool (update_spec)
            return f"{name}: of pool {status.pool or 'none'} now"
        spec = await _spec(client, wf_id, found.run_id)
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return f"{name}: no workflow runs under that name"
        raise
    adopted = AdoptedMachine(name=name, phase=status.phase, current=False, revision=UNREAD,
                             preserved=status.preserved, since=status.preserved_at,
                             waiting_for_quota=status.waiting_for_quota, detail="its spec could not be read")
    if spec is None:
        return adopted
    seen = verdict(template, inp.pool, spec)
    adopted = adopted.model_copy(update={"zone": seen.zone, "revision": own_revision(spec), "detail": ""})
    if seen.needs_new_vm:
        return adopted.model_copy(update={"detail": f"{', '.join(seen.needs_new_vm)} differ from the template"})
    if seen.in_place and not status.preserved and status.phase != Phase.TERMINATING:
        why_not = await _send_in_place(client, wf_id, seen.wanted)
        if why_not:
            return adopted.model_copy(update={"detail": f"did not take the template in place: {why_not[:200]}"})
        return adopted.model_copy(update={"current": True, "revision": "", "detail": ", ".join(seen.changed)})
    return adopted.model_copy(update={"current": True, "revision": ""})


async def adopt_pool_machines(client: Client, inp: AdoptionInput) -> Adoption:
    names = inp.names or await open_machine_names(client, inp.resource_group, inp.pool)
    known = set(inp.known)
    candidates = sorted({name for name in names if name not in known})
    template = PoolTemplate.model_validate(inp.template)
    gate = asyncio.Semaphore(AT_ONCE)
    done = 0

    async def one(name: str) -> AdoptedMachine | str:
        nonlocal done
        async with gate:
            answer = await adopt_one(client, inp, template, name)
        done += 1
        activity.heartbeat(done)
        return answer

    answers = await asyncio.gather(*(one(name) for name in candidates))
    return Adoption(adopted=[a for a in answers if isinstance(a, AdoptedMachine)],
                    refused=[a for a in answers if isinstance(a, str)][:REFUSALS_KEPT], listed=len(names))
