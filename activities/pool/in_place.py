"""update_pool_machines: a pool's template change that every machine takes in place, sent to each machine's
workflow as its own `update_spec` (the machine re-tags or re-configures its resources, and refuses what it cannot
take: that machine is then replaced by the pool's rollout)."""

import asyncio

from temporalio import activity
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from models.naming import workflow_id
from models.pool import PoolTemplate
from models.pool_in_place import machine_spec_in_place
from models.pool_io import InPlaceInput, InPlaceOutcome, MachineInZone
from models.spec_changes import SpecUpdate
from models.temporal_api import UPDATE_SPEC

AT_ONCE = 20  # machines updated at once: each update waits for its machine's own Azure calls, paced fleet-wide


async def _update(client: Client, inp: InPlaceInput, template: PoolTemplate, machine: MachineInZone) -> InPlaceOutcome:
    spec = machine_spec_in_place(template, inp.pool, machine)
    handle = client.get_workflow_handle(workflow_id(inp.resource_group, machine.name))
    try:
        answer = await handle.execute_update(UPDATE_SPEC, spec, result_type=SpecUpdate)
    except WorkflowUpdateFailedError as err:  # the machine's validator refused (being deleted, ...)
        return InPlaceOutcome(name=machine.name, applied=False, detail=str(err.cause or err))
    except RPCError as err:
        if err.status == RPCStatusCode.NOT_FOUND:  # its workflow completed meanwhile (deleted)
            return InPlaceOutcome(name=machine.name, applied=False, detail="its workflow ended")
        raise
    return InPlaceOutcome(name=machine.name, applied=True, detail=answer.message)


async def update_pool_machines(client: Client, inp: InPlaceInput) -> list[InPlaceOutcome]:
    template = PoolTemplate.model_validate(inp.template)
    gate = asyncio.Semaphore(AT_ONCE)
    done = 0

    async def one(machine: MachineInZone) -> InPlaceOutcome:
        nonlocal done
        async with gate:
            outcome = await _update(client, inp, template, machine)
        done += 1
        activity.heartbeat(done)  # progress, and proof of life while a fleet-wide pace holds the updates
        return outcome

    return list(await asyncio.gather(*(one(m) for m in inp.machines)))
