"""Finding pools for `azmc pool ...`: a name checked by the spec's rules and resolved to its workflow id, and
every pool listed with its status."""

import asyncio
from dataclasses import dataclass
from datetime import datetime

from temporalio.client import Client, WorkflowExecution, WorkflowExecutionStatus

from cli.machines import MachineError, WorkflowNaming
from cli.pool.headline import headline_of
from cli.pool_workflow import PoolError, status
from models.arm_names import POOL_NAME
from models.naming import POOL_WORKFLOW_ID_PREFIX, pool_workflow_id
from models.pool_status import PoolHeadline
from models.temporal_api import POOL_WORKFLOW_TYPE


def pool_of(wf_id: str) -> tuple[str, str] | None:
    """(resource group, name) of `pool/<rg>/<name>`, else None."""
    parts = wf_id.split("/")
    if len(parts) == 3 and f"{parts[0]}/" == POOL_WORKFLOW_ID_PREFIX and parts[1] and parts[2]:
        return parts[1], parts[2]
    return None


POOL_NAMING = WorkflowNaming("pool", POOL_NAME, pool_of, pool_workflow_id)


def pool_ref(name: str, resource_group: str = "") -> str | None:
    """NAME, RG/NAME or pool/RG/NAME checked by the spec's name rules (PoolError otherwise, before any call):
    the workflow id when the resource group is known, else None (look the name up among open pools). A pool's
    name follows POOL_NAME, as in `azmc get --pool`: one that no MachinePool can have is simply not found."""
    try:
        return POOL_NAMING.ref(name, resource_group)
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
    status: PoolHeadline | None  # None: closed (deleted), or its status could not be read
    started: datetime | None = None
    note: str = ""


async def list_pools(client: Client, include_closed: bool = False) -> list[PoolRow]:
    """Every pool, with the headline it keeps in its memo (cli/pool/headline.py): one visibility listing, no pool
    asked; only a pool that keeps none (older azmc) is queried."""
    async def row(wf: WorkflowExecution) -> PoolRow:
        wf_id, state, started = wf.id, wf.status, wf.start_time
        rg, name = pool_of(wf_id) or ("", wf_id)
        if state != WorkflowExecutionStatus.RUNNING:
            shown = state.name.title().replace("_", " ") if state else "Closed"
            return PoolRow(wf_id, rg, name, None, started, note="Deleted" if shown == "Completed" else shown)
        try:
            kept = await headline_of(wf) or PoolHeadline.of(await status(client, wf_id))
        except Exception as error:  # a pool whose worker is away still shows, with why it has no numbers
            return PoolRow(wf_id, rg, name, None, started, note=f"status unavailable ({type(error).__name__})")
        return PoolRow(wf_id, rg, name, kept, started)

    rows = await asyncio.gather(*(row(wf) for wf in await _pools(client, include_closed)))
    return sorted(rows, key=lambda r: (r.resource_group, r.name))
