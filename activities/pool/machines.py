"""describe_pool_machines: a pool's machines as their own workflows say, before the pool acts on a notice.

A describe is answered by the server from the workflow's current state: whether it runs, who started it, and
its `AzmcPhase`, which a machine upserts in the workflow task that sends the phase to its pool. So it is at
least as new as any notice the machine sent, and needs no worker. Whether a machine is preserved, and why it
waits for quota, only its `status` query says: asked only when a notice claims it.
"""

import asyncio

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from models.naming import workflow_id
from models.pool_io import ChildState, MachinesOfPool, MachineTruth
from models.search_attributes import AZMC_PHASE
from models.status import MachineStatus, Phase
from models.temporal_api import STATUS_QUERY


async def machine_truth(client: Client, pool_workflow_id: str, resource_group: str, name: str,
                        query: bool = False) -> MachineTruth:
    handle = client.get_workflow_handle(workflow_id(resource_group, name))
    try:
        description = await handle.describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return MachineTruth(name=name, state=ChildState.ABSENT, detail="is unknown to Temporal")
        raise
    running = description.status == WorkflowExecutionStatus.RUNNING
    # A machine that continued as new keeps its parent; one started by anyone else has another (or none).
    if description.parent_id != pool_workflow_id:
        started_by = description.parent_id or "a client"
        return MachineTruth(name=name, state=ChildState.FOREIGN,
                            detail=f"{'runs' if running else 'ended'}, started by {started_by}, not by the pool")
    if description.status == WorkflowExecutionStatus.COMPLETED:
        return MachineTruth(name=name, state=ChildState.DELETED, detail="completed")
    if not running:
        status = description.status.name.lower().replace("_", " ") if description.status else "closed"
        return MachineTruth(name=name, state=ChildState.ENDED, detail=f"ended ({status})")
    if query:
        status = await handle.query(STATUS_QUERY, result_type=MachineStatus)
        return MachineTruth(name=name, state=ChildState.OPEN, phase=status.phase, preserved=status.preserved,
                            waiting_for_quota=status.waiting_for_quota, detail="runs")
    shown = description.typed_search_attributes.get(AZMC_PHASE)
    try:
        phase = Phase(shown) if shown else Phase.PENDING  # the pool starts its machines with AzmcPhase Pending
    except ValueError:
        phase = None
    return MachineTruth(name=name, state=ChildState.OPEN, phase=phase, detail="runs")


async def describe_pool_machines(client: Client, inp: MachinesOfPool) -> list[MachineTruth]:
    return list(await asyncio.gather(*(machine_truth(client, inp.pool_workflow_id, inp.resource_group, name,
                                                     query=inp.query_status) for name in inp.names)))
