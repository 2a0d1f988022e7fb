"""The calls on a MachinePool workflow behind `azmc apply` (kind: MachinePool), `azmc pool ...`, the pool demo
and the benchmarks, on the public Temporal surface only: start it, its `scale`/`set_template`/`set_settings`
updates, its `status` query and its `delete` signal. Finding a pool by name is cli/pool/lookup.py's."""

from dataclasses import dataclass
from typing import Any

from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import WorkflowAlreadyStartedError

from cli.machines import ID_CONFLICT_POLICY, ID_REUSE_POLICY, MachineError
from models.naming import pool_workflow_id
from models.pool import PoolSpec, PoolStatus, setting_changes
from models.search_attributes import AZMC_POOL, AZMC_RESOURCE_GROUP
from models.temporal_api import (
    DELETE_SIGNAL,
    POOL_WORKFLOW_TYPE,
    RESUME_REPAIRS_UPDATE,
    SCALE_UPDATE,
    SET_SETTINGS_UPDATE,
    SET_TEMPLATE_UPDATE,
    STATUS_QUERY,
)


class PoolError(MachineError):
    """A pool cannot be found, addressed or changed; one line with what to do."""


async def status(client: Client, wf_id: str) -> PoolStatus:
    return await client.get_workflow_handle(wf_id).query(STATUS_QUERY, result_type=PoolStatus)


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


async def resume_repairs(client: Client, wf_id: str) -> PoolStatus:
    """The `resume_repairs` update: repairs run although more than max_unhealthy machines are Unhealthy."""
    try:
        return await client.get_workflow_handle(wf_id).execute_update(RESUME_REPAIRS_UPDATE, result_type=PoolStatus)
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
        # The pool's own operation says whether its machines take the change in place (workflows/pool/in_place.py).
        last = after.recent_operations[-1].description if after.recent_operations else ""
        how = "applied in place" if "change in place" in last else "rolling out"
        changed.append(f"template (revision {now.target_revision or '-'} -> {after.target_revision}, {how})")
    if now.replicas != spec.replicas:
        await scale(client, wf_id, spec.replicas)
        changed.append(f"replicas {now.replicas} -> {spec.replicas}")
    return changed
