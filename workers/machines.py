"""Client-side machine operations behind `azmc apply/get/describe/delete`, on the public Temporal surface only."""

from dataclasses import dataclass
from datetime import datetime

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import WorkflowAlreadyStartedError

from models.naming import workflow_id
from models.requests import DeleteRequest
from models.spec import MachineSpec
from models.spec_changes import SpecUpdate
from models.status import MachineStatus
from workflows.inputs import WORKFLOW_TYPE
from workflows.search_attributes import AZMC_MACHINE, AZMC_PHASE, AZMC_POOL, AZMC_RESOURCE_GROUP
from workflows.spec_update import UPDATE_NAME


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


# Starting twice: a running machine is never started again (the start fails, and `apply` sends the spec
# to the running workflow as `update_spec` instead); a closed one (Deleted, Failed, terminated) may be
# started again under the same id, adopting whatever of it is still in Azure.
ID_REUSE_POLICY = WorkflowIDReusePolicy.ALLOW_DUPLICATE
ID_CONFLICT_POLICY = WorkflowIDConflictPolicy.FAIL


@dataclass(frozen=True)
class Applied:
    workflow_id: str
    started: bool
    update: SpecUpdate | None = None  # the running machine's answer when it was not started

    def line(self, spec: MachineSpec) -> str:
        machine = f"machine {spec.resource_group}/{spec.name}"
        if self.started:
            return f"{machine} created (workflow {self.workflow_id})"
        update = self.update or SpecUpdate()
        changed = f"; changed: {', '.join(update.changed)}" if update.changed else ""
        return f"{machine} {update.message} (workflow {self.workflow_id}{changed})"


async def apply(client: Client, spec: MachineSpec, task_queue: str) -> Applied:
    """Start the machine's workflow; when it runs already, hand it the spec (`update_spec`).

    Raises MachineError when the running machine refuses the spec (a change that needs a new VM).
    """
    wf_id = workflow_id(spec.resource_group, spec.name)
    try:
        await client.start_workflow(
            WORKFLOW_TYPE,
            spec,
            id=wf_id,
            task_queue=task_queue,
            id_reuse_policy=ID_REUSE_POLICY,
            id_conflict_policy=ID_CONFLICT_POLICY,
            # Set at start so `azmc get` and the UI show the machine before its first workflow task runs.
            search_attributes=_initial_search_attributes(spec),
            static_summary=static_summary(spec),
        )
    except WorkflowAlreadyStartedError:
        return Applied(wf_id, started=False, update=await _update(client, wf_id, spec))
    return Applied(wf_id, started=True)


async def _update(client: Client, wf_id: str, spec: MachineSpec) -> SpecUpdate:
    try:
        return await client.get_workflow_handle(wf_id).execute_update(UPDATE_NAME, spec, result_type=SpecUpdate)
    except WorkflowUpdateFailedError as error:
        cause = error.cause
        reason = getattr(cause, "message", None) or str(cause or error)
        raise MachineError(f"machine {spec.resource_group}/{spec.name} (workflow {wf_id}): {reason}") from None


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
