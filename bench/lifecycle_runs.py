"""Running lifecycles for the benches: a bench machine's spec, starting machines in bounded batches, counting them
through visibility, and one run of N lifecycles from start to deleted."""

import asyncio
import time
from collections.abc import Callable, Coroutine
from typing import Any

from temporalio.client import Client

from cli.machines import apply
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, seed_subnet_id
from models.naming import machine_of, workflow_id
from models.search_attributes import AZMC_PHASE
from models.spec import MachineSpec
from models.temporal_api import DELETE_SIGNAL
from workers.settings import TASK_QUEUE


def bench_spec(name: str, **fields: Any) -> MachineSpec:
    """A machine with an OS disk only, in the emulator's seed resource group; `fields` override."""
    return MachineSpec.model_validate({
        "name": name, "resource_group": SEED_RESOURCE_GROUP, "location": SEED_LOCATION,
        "vm_size": "Standard_D2s_v5", "subnet_id": seed_subnet_id(),
        "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
        "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBench bench", **fields,
    })  # fmt: skip


async def count(client: Client, query: str) -> int:
    return (await client.count_workflows(query)).count


async def wait_count(client: Client, query: str, target: int, timeout_s: float = 900) -> None:
    deadline = time.monotonic() + timeout_s
    while await count(client, query) != target:
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {target} x {query}")
        await asyncio.sleep(0.2)


async def bounded(jobs: list[Callable[[], Coroutine[Any, Any, Any]]], limit: int = 50) -> None:
    gate = asyncio.Semaphore(limit)

    async def one(job: Callable[[], Coroutine[Any, Any, Any]]) -> None:
        async with gate:
            await job()

    await asyncio.gather(*(one(job) for job in jobs))


def machine_ids(prefix: str, n: int) -> list[str]:
    return [workflow_id(SEED_RESOURCE_GROUP, f"{prefix}-{i:05d}") for i in range(n)]


def machine_starter(client: Client) -> Callable[[str], Coroutine[Any, Any, Any]]:
    def start(wf_id: str) -> Coroutine[Any, Any, Any]:
        machine = machine_of(wf_id)
        assert machine is not None, wf_id
        return apply(client, bench_spec(machine[1]), TASK_QUEUE)

    return start


async def lifecycle_run(client: Client, kind: str, ids: list[str], start: Callable[[str], Coroutine[Any, Any, Any]],
                        id_prefix: str) -> float:  # fmt: skip
    """Start all, wait until all are Running, signal delete to all, wait until all completed: seconds taken."""
    running = f"WorkflowType = '{kind}' AND ExecutionStatus = 'Running' AND WorkflowId STARTS_WITH '{id_prefix}'"
    began = time.monotonic()
    await bounded([lambda wf_id=wf_id: start(wf_id) for wf_id in ids])  # type: ignore[misc]  # mypy cannot type a lambda's default argument
    await wait_count(client, f"{running} AND {AZMC_PHASE.name} = 'Running'", len(ids))
    await bounded([lambda wf_id=wf_id: client.get_workflow_handle(wf_id).signal(DELETE_SIGNAL) for wf_id in ids])  # type: ignore[misc]  # mypy cannot type a lambda's default argument
    await wait_count(client, running, 0)
    return time.monotonic() - began
