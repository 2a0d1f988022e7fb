"""Shared pieces of the pool tests: a PoolSpec, starting a pool, waiting on its status, its machines' resources."""

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

from temporalio.client import Client, WorkflowHandle
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.audit import AuditInterceptor
from activities.driver import AzureDriver
from models.naming import POOL_TAG, pool_workflow_id
from models.pool import PoolStatus
from models.status import Phase
from models.temporal_api import POOL_WORKFLOW_TYPE, STATUS_QUERY
from tests.support.emulator import EmulatorHandle
from tests.workflows.helpers import RESOURCE_GROUP, spec_dict, wait_status
from workers.sandbox import workflow_runner
from workers.worker import offerings_worker, paced
from workflows.registry import ALL_WORKFLOWS

POOL = "web"


def template_dict(subnet_id: str, **overrides: Any) -> dict[str, Any]:
    """A machine template (a MachineSpec without name and pool), without data disks to keep tests lean."""
    template = spec_dict(subnet_id=subnet_id, data_disks=[], **overrides)
    del template["name"], template["pool"]
    return template


def pool_dict(subnet_id: str, replicas: int, name: str = POOL, **overrides: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {"name": name, "resource_group": RESOURCE_GROUP, "replicas": replicas,
                            "template": template_dict(subnet_id)}
    spec.update(overrides)
    return spec


async def start_pool(client: Client, task_queue: str, spec: dict[str, Any], **kwargs: Any) -> WorkflowHandle:
    return await client.start_workflow(POOL_WORKFLOW_TYPE, spec, id=pool_workflow_id(RESOURCE_GROUP, spec["name"]),
                                       task_queue=task_queue, result_type=PoolStatus, **kwargs)


async def pool_status(handle: WorkflowHandle) -> PoolStatus:
    return await handle.query(STATUS_QUERY, result_type=PoolStatus)


async def wait_pool(
    env: WorkflowEnvironment, handle: WorkflowHandle, accept: Callable[[PoolStatus], bool], *,
    step: timedelta = timedelta(seconds=2), virtual_limit: timedelta = timedelta(hours=3),
    seen: list[PoolStatus] | None = None,
) -> PoolStatus:
    """Let virtual time pass in small steps until the pool's status satisfies `accept` (`seen`: every read)."""
    return await wait_status(env, lambda: pool_status(handle), accept, step=step, virtual_limit=virtual_limit,
                             seen=seen)


def settled(replicas: int, revision: str = "") -> Callable[[PoolStatus], bool]:
    """`replicas` machines, all Running and available (on `revision` when given), nothing else left."""
    def accept(status: PoolStatus) -> bool:
        running = [m for m in status.machines if m.phase == Phase.RUNNING and not m.deleting and not m.preserved]
        return (len(status.machines) == replicas == len(running) == status.available
                and (not revision or all(m.revision == revision for m in running)))
    return accept


def pool_vms(emulator: EmulatorHandle, pool: str = POOL) -> list[str]:
    return sorted(r["name"] for r in emulator.resources("virtualMachines")
                  if (r.get("tags") or {}).get(POOL_TAG) == pool)


def pool_resources(emulator: EmulatorHandle, pool: str = POOL) -> list[dict[str, Any]]:
    return [r for r in emulator.resources() if (r.get("tags") or {}).get(POOL_TAG) == pool]


@asynccontextmanager
async def worker_of(client: Client, driver: AzureDriver, task_queue: str) -> AsyncIterator[None]:
    """A worker of its own on `task_queue`, as `azmc worker` runs, for a test that stops or adds one."""
    activities = driver.activities()
    async with Worker(client, task_queue=task_queue, workflows=ALL_WORKFLOWS, activities=activities,
                      interceptors=[AuditInterceptor(client.data_converter)], workflow_runner=workflow_runner()), \
            offerings_worker(client, task_queue), paced(client, task_queue, activities):
        yield
