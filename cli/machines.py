"""Client-side machine operations behind `azmc apply/get/describe/delete`, on the public Temporal surface only."""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TypeVar

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDConflictPolicy,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError, RPCStatusCode

from cli.stalled_runs import why_stalled
from models.arm_names import MACHINE_NAME, POOL_NAME, RESOURCE_GROUP_NAME, NameRule
from models.inventory import Inventory
from models.naming import machine_of, workflow_id
from models.requests import DeleteRequest
from models.search_attributes import AZMC_MACHINE, AZMC_PHASE, AZMC_POOL, AZMC_RESOURCE_GROUP
from models.spec import MachineSpec
from models.spec_changes import SpecUpdate
from models.status import MachineStatus
from models.temporal_api import DELETE_SIGNAL, STATUS_QUERY, UPDATE_SPEC, WORKFLOW_TYPE

# A worker answers a query in milliseconds; one that does not answer in this long is asked why (cli/stalled_runs.py).
QUERY_TIMEOUT = timedelta(seconds=20)


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
    open: bool = True
    run_id: str = ""


@dataclass(frozen=True)
class AbandonedMachine:
    """Resources tagged by azmc whose machine workflow is not open (found by workers/abandoned.py)."""

    name: str
    resource_group: str
    pool: str
    inventory: Inventory
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
    await check_answering(client, wf_id)  # an update waits for a worker to accept it, without a deadline
    try:
        return await client.get_workflow_handle(wf_id).execute_update(UPDATE_SPEC, spec, result_type=SpecUpdate)
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


def execution_state(status: WorkflowExecutionStatus | None) -> str:
    """"Running", "Completed", "Terminated", "Timed Out", ... ("" when unknown)."""
    return status.name.title().replace("_", " ") if status else ""


def shown_phase(phase: str, status: WorkflowExecutionStatus | None) -> str:
    """The phase a row shows. A run that ended without deleting its machine (terminated, by a reset too,
    cancelled, timed out, failed) stopped acting: its last phase is history, not what the machine is now, so
    the row says how the run ended and what it last said ("Terminated (was Running)")."""
    if status == WorkflowExecutionStatus.COMPLETED:
        return phase or "Deleted"
    if status in (None, WorkflowExecutionStatus.RUNNING):
        return phase or "Pending"
    return f"{execution_state(status)} (was {phase or 'Pending'})"


def _row(execution_id: str, attributes: TypedSearchAttributes, started: datetime | None,
         status: WorkflowExecutionStatus | None, run_id: str = "") -> MachineRow:  # fmt: skip
    rg, name = machine_of(execution_id) or ("", "")
    return MachineRow(
        name=attributes.get(AZMC_MACHINE, "") or name,
        resource_group=attributes.get(AZMC_RESOURCE_GROUP, "") or rg,
        phase=shown_phase(attributes.get(AZMC_PHASE, ""), status),
        pool=attributes.get(AZMC_POOL, ""),
        started=started,
        status=execution_state(status),
        workflow_id=execution_id,
        open=status == WorkflowExecutionStatus.RUNNING,
        run_id=run_id,
    )


def checked(rule: NameRule, value: str) -> str:
    """`value` if it is a valid name of this kind (the spec's rules), else MachineError in one line."""
    problem = rule.problem(value)
    if problem:
        raise MachineError(f"{rule.kind} {value!r} is not valid: {problem}")
    return value


def visibility_query(*, open_only: bool, name: str = "", resource_group: str = "", pool: str = "") -> str:
    """A list filter built only from names that pass the spec's rules, which allow no quote or backslash:
    text that is not a valid name is refused here, never pasted into the query."""
    clauses = [f"WorkflowType = '{WORKFLOW_TYPE}'"]
    if open_only:
        clauses.append("ExecutionStatus = 'Running'")
    for key, rule, value in ((AZMC_MACHINE, MACHINE_NAME, name), (AZMC_RESOURCE_GROUP, RESOURCE_GROUP_NAME,
                             resource_group), (AZMC_POOL, POOL_NAME, pool)):  # fmt: skip
        if value:
            clauses.append(f"{key.name} = '{checked(rule, value)}'")
    return " AND ".join(clauses)


async def list_machines(client: Client, include_closed: bool = False, pool: str = "") -> list[MachineRow]:
    """Open machines; with `include_closed` also the runs that ended, but not those continued as new (their
    machine is the next run's row). A machine's open run comes before its closed ones."""
    query = visibility_query(open_only=not include_closed, pool=pool)
    rows = [
        _row(wf.id, wf.typed_search_attributes, wf.start_time, wf.status, wf.run_id)
        async for wf in client.list_workflows(query)
        if wf.status != WorkflowExecutionStatus.CONTINUED_AS_NEW
    ]
    return sorted(rows, key=lambda row: (row.resource_group, row.name, not row.open))


@dataclass(frozen=True)
class WorkflowNaming:
    """How a kind of workflow is addressed: `<kind>/RG/NAME`, its name's rule, and its id from (RG, NAME)."""

    kind: str
    rule: NameRule
    parse: Callable[[str], tuple[str, str] | None]
    make: Callable[[str, str], str]

    def checked_id(self, resource_group: str, name: str) -> str:
        return self.make(checked(RESOURCE_GROUP_NAME, resource_group), checked(self.rule, name))

    def ref(self, name: str, resource_group: str = "") -> str | None:
        """NAME, RG/NAME or <kind>/RG/NAME checked by the spec's name rules (MachineError otherwise, before any
        call): the workflow id when the resource group is known, else None (the caller looks the name up)."""
        given = self.parse(name)
        if given is not None:
            return self.checked_id(*given)
        parts = name.split("/")
        if len(parts) == 2:
            return self.checked_id(parts[0], parts[1])
        if len(parts) != 1:
            raise MachineError(f"{name!r} is not NAME, RESOURCE_GROUP/NAME or {self.kind}/RESOURCE_GROUP/NAME")
        if resource_group:
            return self.checked_id(resource_group, name)
        checked(self.rule, name)
        return None


MACHINE_NAMING = WorkflowNaming("machine", MACHINE_NAME, machine_of, workflow_id)


def machine_ref(name: str, resource_group: str = "") -> str | None:
    """A machine's workflow id (MACHINE_NAMING.ref); None: look the name up in visibility."""
    return MACHINE_NAMING.ref(name, resource_group)


async def resolve(client: Client, name: str, resource_group: str = "") -> str:
    """The workflow id of a machine given as NAME, RG/NAME or machine/RG/NAME; every part must be a valid name."""
    wf_id = machine_ref(name, resource_group)
    if wf_id is not None:
        return wf_id
    found = [wf.id async for wf in client.list_workflows(visibility_query(open_only=True, name=name))]
    if not found:
        raise MachineError(f"no running machine named {name!r}; list them with `azmc get`, or pass -g RESOURCE_GROUP")
    if len(set(found)) > 1:
        groups = ", ".join(sorted({(machine_of(wf_id) or ("?", ""))[0] for wf_id in found}))
        raise MachineError(f"several machines are named {name!r} (resource groups {groups}); pass -g RESOURCE_GROUP")
    return found[0]


# How long `azmc describe` and `azmc pool describe` wait for the workflow's own answer: a query waits for the
# workflow task the workflow has pending, which waits its turn on a busy worker, and the server holds one such query
# per workflow, refusing the others (RESOURCE_EXHAUSTED, which the client retries, backing off); after this the
# server answers (cli/machine/answered.py, cli/pool/headline.py).
QUERY_WAIT = timedelta(seconds=1)
_NOT_ANSWERED = (RPCStatusCode.DEADLINE_EXCEEDED, RPCStatusCode.CANCELLED, RPCStatusCode.RESOURCE_EXHAUSTED)
T = TypeVar("T")


async def answered_soon(query: Awaitable[T]) -> T | None:
    """The query's answer, or None when it does not come within QUERY_WAIT (its retries included)."""
    try:
        return await asyncio.wait_for(query, QUERY_WAIT.total_seconds())
    except TimeoutError:
        return None
    except RPCError as error:
        if error.status not in _NOT_ANSWERED:
            raise
        return None


async def check_answering(client: Client, wf_id: str, failing_task: bool = False) -> None:
    """MachineError, at once, when no worker polls the version the machine's next task goes to; `failing_task`:
    also when that task keeps failing (cli/stalled_runs.py)."""
    try:
        reason = await why_stalled(client, wf_id, failing_task)
    except RPCError as error:
        if error.status != RPCStatusCode.UNIMPLEMENTED:
            raise
        return  # a server that cannot describe task queues (the SDK's test server) cannot say: wait as before
    if reason:
        raise MachineError(reason)


async def status(client: Client, wf_id: str) -> MachineStatus:
    """The machine's `status` answer; a query that fails or does not answer in QUERY_TIMEOUT is asked why (a
    command that queries once asks `check_answering` first)."""
    handle: WorkflowHandle = client.get_workflow_handle(wf_id)
    try:
        return await handle.query(STATUS_QUERY, result_type=MachineStatus, rpc_timeout=QUERY_TIMEOUT)
    except RPCError as error:
        try:
            await check_answering(client, wf_id, failing_task=True)
        except RPCError:
            raise error from None  # the query's own answer says more than a failed look at why
        raise


async def request_delete(client: Client, wf_id: str, force: bool = False, reason: str = "") -> None:
    handle = client.get_workflow_handle(wf_id)
    await handle.signal(DELETE_SIGNAL, DeleteRequest(reason=reason or "azmc delete", force=force))


async def execution_status(client: Client, wf_id: str) -> WorkflowExecutionStatus | None:
    return (await client.get_workflow_handle(wf_id).describe()).status
