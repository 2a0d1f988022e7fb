"""The pool's hands on its machines: start a machine's MachineLifecycle as a child, signal it delete or preserve,
or allow it a repair step.

Children are started with ParentClosePolicy ABANDON: a pool that continues as new (or is terminated)
must never take its machines down with it. The pool addresses them by workflow id afterwards, so a
later run of the pool reaches the machines an earlier run started.
"""

import asyncio
from typing import Any

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes, WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.workflow import ChildWorkflowHandle, ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from models.naming import workflow_id
    from models.search_attributes import AZMC_MACHINE, AZMC_PHASE, AZMC_POOL, AZMC_RESOURCE_GROUP
    from models.spec import MachineSpec
    from models.status import Phase
    from models.temporal_api import DELETE_SIGNAL, PRESERVE_SIGNAL, REPAIR_ALLOWED_SIGNAL, WORKFLOW_TYPE



async def start_machine(spec: MachineSpec) -> ChildWorkflowHandle[Any, Any] | None:
    """Start the machine's own workflow; None when its id is taken (the pool then picks another name)."""
    attributes = TypedSearchAttributes([
        SearchAttributePair(AZMC_MACHINE, spec.name), SearchAttributePair(AZMC_RESOURCE_GROUP, spec.resource_group),
        SearchAttributePair(AZMC_POOL, spec.pool), SearchAttributePair(AZMC_PHASE, Phase.PENDING)])
    try:
        return await workflow.start_child_workflow(
            WORKFLOW_TYPE, spec.model_dump(mode="json"), id=workflow_id(spec.resource_group, spec.name),
            task_queue=workflow.info().task_queue, parent_close_policy=ParentClosePolicy.ABANDON,
            id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE, search_attributes=attributes,
            static_summary=f"Machine {spec.name}: {spec.vm_size} in {spec.resource_group} ({spec.location}), "
                           f"pool {spec.pool}")
    except WorkflowAlreadyStartedError:
        return None


async def _signal(resource_group: str, name: str, signal: str, payload: dict[str, Any]) -> bool:
    """False when the machine's workflow is gone (it completed already)."""
    handle = workflow.get_external_workflow_handle(workflow_id(resource_group, name))
    try:
        await handle.signal(signal, payload)
    except Exception as err:  # not found: nothing left to signal
        workflow.logger.info(f"[pool] {signal} to machine {name} not delivered: {err}")
        return False
    return True


async def delete_machines(resource_group: str, requests: list[tuple[str, dict[str, Any]]]) -> list[bool]:
    """Signal `delete` (name, payload) to every machine at once; per machine, whether it was delivered."""
    return list(await asyncio.gather(*(_signal(resource_group, n, DELETE_SIGNAL, r) for n, r in requests)))


async def preserve_machines(resource_group: str, names: list[str], reason: str) -> list[bool]:
    return list(await asyncio.gather(*(_signal(resource_group, n, PRESERVE_SIGNAL, {"reason": reason})
                                       for n in names)))


async def allow_repairs(resource_group: str, allowed: list[tuple[str, str]]) -> None:
    """`repair_allowed` (machine, action) to every machine allowed a step; one gone meanwhile needs none."""
    await asyncio.gather(*(_signal(resource_group, n, REPAIR_ALLOWED_SIGNAL, {"action": a}) for n, a in allowed))
