"""Client-side machine operations behind `azmc apply/get/describe/delete`, on the public Temporal surface only."""

from dataclasses import dataclass
from datetime import datetime

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import WorkflowAlreadyStartedError

from models.naming import workflow_id
from models.requests import DeleteRequest
from models.spec import MachineSpec
from models.status import MachineStatus
from workflows.inputs import WORKFLOW_TYPE
from workflows.search_attributes import AZMC_MACHINE, AZMC_PHASE, AZMC_POOL, AZMC_RESOURCE_GROUP


class MachineError(LookupError):
    """A machine cannot be found or addressed; one line with what to do."""


@dataclass(frozen=True)
class MachineRow:
    name: str
    resource_group: str
    phase: str
    pool: str
    started: datetime | None
    status: str
    workflow_id: str


def static_summary(spec: MachineSpec) -> str:
    """The UI's one-line summary of the workflow (only a starter can set it)."""
    pool = f", pool {spec.pool}" if spec.pool else ""
    return f"Machine {spec.name}: {spec.vm_size} in {spec.resource_group} ({spec.location}){pool}"


async def apply(client: Client, spec: MachineSpec, task_queue: str) -> tuple[bool, str]:
    """Start the machine's workflow; (False, id) when a workflow for it is already running."""
    wf_id = workflow_id(spec.resource_group, spec.name)
    try:
        await client.start_workflow(
            WORKFLOW_TYPE,
            spec,
            id=wf_id,
            task_queue=task_queue,
            # Set at start so `azmc get` and the UI show the machine before its first workflow task runs.
            search_attributes=_initial_search_attributes(spec),
            static_summary=static_summary(spec),
        )
    except WorkflowAlreadyStartedError:
        return False, wf_id
    return True, wf_id


def _initial_search_attributes(spec: MachineSpec) -> TypedSearchAttributes:
    pairs = [
        SearchAttributePair(AZMC_MACHINE, spec.name),
        SearchAttributePair(AZMC_RESOURCE_GROUP, spec.resource_group),
        SearchAttributePair(AZMC_PHASE, "Pending"),
    ]
    if spec.pool:
        pairs.append(SearchAttributePair(AZMC_POOL, spec.pool))
    return TypedSearchAttributes(pairs)


def _row(execution_id: str, attributes: TypedSearchAttributes, started: datetime | None,
         status: WorkflowExecutionStatus | None) -> MachineRow:  # fmt: skip
    _, rg, name = [*execution_id.split("/", 2), "", ""][:3]
    phase = attributes.get(AZMC_PHASE, "")
    state = status.name.title().replace("_", " ") if status else ""
    if status == WorkflowExecutionStatus.COMPLETED and not phase:
        phase = "Deleted"
    return MachineRow(
        name=attributes.get(AZMC_MACHINE, "") or name,
        resource_group=attributes.get(AZMC_RESOURCE_GROUP, "") or rg,
        phase=phase or "Pending",
        pool=attributes.get(AZMC_POOL, ""),
        started=started,
        status=state,
        workflow_id=execution_id,
    )


async def list_machines(client: Client, include_closed: bool = False, pool: str = "") -> list[MachineRow]:
    query = f"WorkflowType = '{WORKFLOW_TYPE}'"
    if not include_closed:
        query += " AND ExecutionStatus = 'Running'"
    if pool:
        query += f" AND AzmcPool = '{pool}'"
    rows = [
        _row(wf.id, wf.typed_search_attributes, wf.start_time, wf.status)
        async for wf in client.list_workflows(query)
    ]
    return sorted(rows, key=lambda row: (row.resource_group, row.name))


async def resolve(client: Client, name: str, resource_group: str = "") -> str:
    """The workflow id of a machine given as NAME, RG/NAME or machine/RG/NAME."""
    if name.startswith("machine/"):
        return name
    if "/" in name:
        rg, _, short = name.partition("/")
        return workflow_id(rg, short)
    if resource_group:
        return workflow_id(resource_group, name)
    query = f"WorkflowType = '{WORKFLOW_TYPE}' AND AzmcMachine = '{name}' AND ExecutionStatus = 'Running'"
    found = [wf.id async for wf in client.list_workflows(query)]
    if not found:
        raise MachineError(f"no running machine named {name!r}; list them with `azmc get`, or pass -g RESOURCE_GROUP")
    if len(set(found)) > 1:
        groups = ", ".join(sorted(wf_id.split("/")[1] for wf_id in set(found)))
        raise MachineError(f"several machines are named {name!r} (resource groups {groups}); pass -g RESOURCE_GROUP")
    return found[0]


async def status(client: Client, wf_id: str) -> MachineStatus:
    handle: WorkflowHandle = client.get_workflow_handle(wf_id)
    return await handle.query("status", result_type=MachineStatus)


async def request_delete(client: Client, wf_id: str, force: bool = False, reason: str = "") -> None:
    handle = client.get_workflow_handle(wf_id)
    await handle.signal("delete", DeleteRequest(reason=reason or "azmc delete", force=force))


async def execution_status(client: Client, wf_id: str) -> WorkflowExecutionStatus | None:
    return (await client.get_workflow_handle(wf_id).describe()).status
