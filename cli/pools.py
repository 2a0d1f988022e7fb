"""Client-side pool operations behind `azmc apply` (kind: MachinePool) and `azmc pool ...`, on the public
Temporal surface only: the MachinePool workflow, its `scale`/`set_template`/`set_settings` updates, `status`
and `delete`."""

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from temporalio.client import Client, WorkflowExecution, WorkflowExecutionStatus, WorkflowUpdateFailedError
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import WorkflowAlreadyStartedError

from cli.machines import ID_CONFLICT_POLICY, ID_REUSE_POLICY, MachineError, checked
from models.arm_names import POOL_NAME, RESOURCE_GROUP_NAME
from models.naming import POOL_WORKFLOW_ID_PREFIX, pool_workflow_id
from models.pool import PoolSpec, PoolStatus, setting_changes
from workflows.api import (
    DELETE_SIGNAL,
    POOL_WORKFLOW_TYPE,
    SCALE_UPDATE,
    SET_SETTINGS_UPDATE,
    SET_TEMPLATE_UPDATE,
    STATUS_QUERY,
)
from workflows.search_attributes import AZMC_POOL, AZMC_RESOURCE_GROUP


class PoolError(MachineError):
    """A pool cannot be found, addressed or changed; one line with what to do."""


def pool_of(wf_id: str) -> tuple[str, str] | None:
    """(resource group, name) of `pool/<rg>/<name>`, else None."""
    parts = wf_id.split("/")
    if len(parts) == 3 and f"{parts[0]}/" == POOL_WORKFLOW_ID_PREFIX and parts[1] and parts[2]:
        return parts[1], parts[2]
    return None


def _checked_id(resource_group: str, name: str) -> str:
    return pool_workflow_id(checked(RESOURCE_GROUP_NAME, resource_group), checked(POOL_NAME, name))


def pool_ref(name: str, resource_group: str = "") -> str | None:
    """NAME, RG/NAME or pool/RG/NAME checked by the spec's name rules (PoolError otherwise, before any call):
    the workflow id when the resource group is known, else None (look the name up among open pools). A pool's
    name follows POOL_NAME, as in `azmc get --pool`: one that no MachinePool can have is simply not found."""
    try:
        given = pool_of(name)
        if given is not None:
            return _checked_id(*given)
        parts = name.split("/")
        if len(parts) == 2:
            return _checked_id(parts[0], parts[1])
        if len(parts) != 1:
            raise PoolError(f"{name!r} is not NAME, RESOURCE_GROUP/NAME or pool/RESOURCE_GROUP/NAME")
        if resource_group:
            return _checked_id(resource_group, name)
        checked(POOL_NAME, name)
        return None
    except PoolError:
        raise
    except MachineError as error:
        raise PoolError(str(error)) from None


_POOLS = f"WorkflowType = '{POOL_WORKFLOW_TYPE}'"


async def _pools(client: Client, include_closed: bool) -> list[WorkflowExecution]:
    query = _POOLS if include_closed else f"{_POOLS} AND ExecutionStatus = 'Running'"
    return [wf async for wf in client.list_workflows(query)]


async def resolve(client: Client, name: str, resource_group: str = "") -> str:
    wf_id = pool_ref(name, resource_group)
    if wf_id is not None:
        return wf_id
    open_pools = await _pools(client, include_closed=False)
    found = sorted({wf.id for wf in open_pools if (pool_of(wf.id) or ("", ""))[1] == name})
    if not found:
        raise PoolError(f"no running pool named {name!r}; list them with `azmc pool get`, or pass -g RESOURCE_GROUP")
    if len(found) > 1:
        groups = ", ".join((pool_of(wf_id) or ("?", ""))[0] for wf_id in found)
        raise PoolError(f"several pools are named {name!r} (resource groups {groups}); pass -g RESOURCE_GROUP")
    return found[0]


@dataclass(frozen=True)
class PoolRow:
    workflow_id: str
    resource_group: str
    name: str
    status: PoolStatus | None  # None: closed (deleted), or its status could not be read
    started: datetime | None = None
    note: str = ""


async def status(client: Client, wf_id: str) -> PoolStatus:
    return await client.get_workflow_handle(wf_id).query(STATUS_QUERY, result_type=PoolStatus)


async def list_pools(client: Client, include_closed: bool = False) -> list[PoolRow]:
    """Every pool, with its status (one query per open pool, side by side)."""
    async def row(wf: WorkflowExecution) -> PoolRow:
        wf_id, state, started = wf.id, wf.status, wf.start_time
        rg, name = pool_of(wf_id) or ("", wf_id)
        if state != WorkflowExecutionStatus.RUNNING:
            shown = state.name.title().replace("_", " ") if state else "Closed"
            return PoolRow(wf_id, rg, name, None, started, note="Deleted" if shown == "Completed" else shown)
        try:
            return PoolRow(wf_id, rg, name, await status(client, wf_id), started)
        except Exception as error:  # a pool whose worker is away still shows, with why it has no numbers
            return PoolRow(wf_id, rg, name, None, started, note=f"status unavailable ({type(error).__name__})")

    rows = await asyncio.gather(*(row(wf) for wf in await _pools(client, include_closed)))
    return sorted(rows, key=lambda r: (r.resource_group, r.name))


def _update_error(wf_id: str, error: WorkflowUpdateFailedError) -> PoolError:
    cause = error.cause
    reason = getattr(cause, "message", None) or str(cause or error)
    return PoolError(f"pool {wf_id} refused: {reason}")


async def scale(client: Client, wf_id: str, replicas: int) -> PoolStatus:
    """The `scale` update: the pool's validator refuses (PoolError, its reason) or the pool answers its status."""
    try:
        return await client.get_workflow_handle(wf_id).execute_update(
            SCALE_UPDATE, {"replicas": replicas}, result_type=PoolStatus)
    except WorkflowUpdateFailedError as error:
        raise _update_error(wf_id, error) from None


async def set_template(client: Client, wf_id: str, spec: PoolSpec) -> PoolStatus:
    try:
        return await client.get_workflow_handle(wf_id).execute_update(
            SET_TEMPLATE_UPDATE, {"template": spec.template.as_input()}, result_type=PoolStatus)
    except WorkflowUpdateFailedError as error:
        raise _update_error(wf_id, error) from None


async def set_settings(client: Client, wf_id: str, settings: dict[str, Any]) -> PoolStatus:
    try:
        return await client.get_workflow_handle(wf_id).execute_update(
            SET_SETTINGS_UPDATE, settings, result_type=PoolStatus)
    except WorkflowUpdateFailedError as error:
        raise _update_error(wf_id, error) from None


async def request_delete(client: Client, wf_id: str, reason: str = "azmc pool delete") -> None:
    await client.get_workflow_handle(wf_id).signal(DELETE_SIGNAL, {"reason": reason})


def static_summary(spec: PoolSpec) -> str:
    template = spec.template
    return (f"Pool {spec.name}: {spec.replicas} x {template.vm_size} in {spec.resource_group} "
            f"({template.location})")


@dataclass(frozen=True)
class PoolApplied:
    workflow_id: str
    started: bool
    changed: tuple[str, ...] = ()

    def line(self, spec: PoolSpec) -> str:
        pool = f"pool {spec.resource_group}/{spec.name}"
        if self.started:
            return f"{pool} created: {spec.replicas} machines of revision {spec.revision} (workflow {self.workflow_id})"
        if not self.changed:
            return f"{pool} unchanged (workflow {self.workflow_id})"
        return f"{pool} changed: {', '.join(self.changed)} (workflow {self.workflow_id})"


async def apply_pool(client: Client, spec: PoolSpec, task_queue: str) -> PoolApplied:
    """Start the pool's workflow; when it runs already, hand it the new template and replica count (updates)."""
    wf_id = pool_workflow_id(spec.resource_group, spec.name)
    try:
        await client.start_workflow(
            POOL_WORKFLOW_TYPE, spec.model_dump(mode="json"), id=wf_id, task_queue=task_queue,
            id_reuse_policy=ID_REUSE_POLICY, id_conflict_policy=ID_CONFLICT_POLICY,
            search_attributes=TypedSearchAttributes([SearchAttributePair(AZMC_POOL, spec.name),
                                                     SearchAttributePair(AZMC_RESOURCE_GROUP, spec.resource_group)]),
            static_summary=static_summary(spec),
        )
    except WorkflowAlreadyStartedError:
        return PoolApplied(wf_id, started=False, changed=tuple(await _change(client, wf_id, spec)))
    return PoolApplied(wf_id, started=True)


async def _change(client: Client, wf_id: str, spec: PoolSpec) -> list[str]:
    now = await status(client, wf_id)
    changed = []
    # The settings first, so a new template rolls out under the new strategy. A pool that shows no settings
    # (older than set_settings) is sent them all: it refuses the unknown update, and that is said.
    settings = spec.settings
    differing = {key: value for key, value in settings.items() if now.settings.get(key) != value}
    if differing:
        await set_settings(client, wf_id, differing)
        changed += setting_changes(now.settings, differing)
    # Always sent: the pool itself knows whether the template differs (the same template keeps its revision,
    # however it was first sent: azmc, or the `temporal` CLI with the file's JSON).
    after = await set_template(client, wf_id, spec)
    if after.target_revision != now.target_revision:
        changed.append(f"template (revision {now.target_revision or '-'} -> {after.target_revision}, rolling out)")
    if now.replicas != spec.replicas:
        await scale(client, wf_id, spec.replicas)
        changed.append(f"replicas {now.replicas} -> {spec.replicas}")
    return changed
