"""The Offerings workflow: the installation's shared memory of refused offerings - durable, shared, expiring."""

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.offerings import memory as offerings_memory
from models.offering_claims import ClaimRequest
from models.offerings import Offering, Refusal
from models.offerings_memory import (
    OfferingsMemory,
    OfferingsQuestion,
    ProbeRelease,
    RefusalReport,
    offerings_task_queue,
    offerings_workflow_id,
)
from models.temporal_api import OFFERINGS_ENTRIES_QUERY, OFFERINGS_WORKFLOW_TYPE
from workers.sandbox import workflow_runner
from workers.worker import offerings_worker
from workflows.registry import ALL_WORKFLOWS

pytestmark = pytest.mark.shared_server  # workers on task queues of their own, stopped at the end

# A subscription of this module's own: on the shared server a memory id another module used names its closed run.
SUBSCRIPTION, LOCATION = f"sub-{uuid.uuid4().hex[:8]}", "westeurope"
MEMORY_ID = offerings_workflow_id(SUBSCRIPTION, LOCATION)


def offering(size: str = "Standard_D4s_v5", zone: str = "1") -> Offering:
    return Offering(vm_size=size, zone=zone, location=LOCATION, subscription=SUBSCRIPTION)


@asynccontextmanager
async def memory_worker(client: Client, task_queue: str) -> AsyncIterator[None]:
    # No workflow cache: the time-skipping test server never moves a query off a stopped worker's sticky
    # queue (a real server does); without stickiness every task goes to whichever worker polls the queue.
    async with offerings_worker(client, task_queue, max_cached_workflows=0):
        yield


async def entries(client: Client) -> list[Refusal]:
    return await client.get_workflow_handle(MEMORY_ID).query(OFFERINGS_ENTRIES_QUERY, result_type=list[Refusal])


async def current_details(client: Client) -> str:
    """What the Temporal UI shows for the memory."""
    metadata = await client.get_workflow_handle(MEMORY_ID).query("__temporal_workflow_metadata")
    return metadata["currentDetails"] if isinstance(metadata, dict) else metadata.current_details


async def test_refusals_are_shared_expire_and_survive_a_worker_restart(workflow_env: WorkflowEnvironment) -> None:
    task_queue = f"offerings-{uuid.uuid4()}"
    zones = [offering(zone=z) for z in ("1", "2", "3")]
    env = workflow_env
    client = env.client
    start = await env.get_current_time()
    # Nothing refused yet: no workflow exists, and every offering is available without starting one.
    async with memory_worker(client, task_queue):
        answer = await offerings_memory.ask(client, OfferingsQuestion(
            subscription=SUBSCRIPTION, location=LOCATION, offerings=zones, at=start))
        assert answer.available == zones and answer.skipped == []

        # Ten machines refused at once: they all reach the one memory (update-with-start races).
        reports = [RefusalReport(offering=zones[0], code="ZonalAllocationFailed", machine=f"rg/vm{i}")
                   for i in range(10)]
        told = await asyncio.gather(*(offerings_memory.tell(client, r, task_queue) for r in reports))
        assert all(t is not None and t.until - t.refused_at == timedelta(hours=1) for t in told)
        not_capacity = RefusalReport(offering=zones[1], code="InvalidParameter")
        assert await offerings_memory.tell(client, not_capacity, task_queue) is None
        assert len(await entries(client)) == 1

    # The worker that holds it in memory is gone; a new one answers from the workflow's history.
    async with memory_worker(client, task_queue):
        kept = await entries(client)
        assert [(r.vm_size, r.zone, r.code) for r in kept] == [("Standard_D4s_v5", "1", "ZonalAllocationFailed")]
        now = await env.get_current_time()
        answer = await offerings_memory.ask(client, OfferingsQuestion(
            subscription=SUBSCRIPTION, location=LOCATION, offerings=zones, at=now))
        assert answer.available == zones[1:]
        assert [s.offering for s in answer.skipped] == zones[:1] and answer.earliest == kept[0].until
        assert "| Standard_D4s_v5 in zone 1 | ZonalAllocationFailed |" in await current_details(client)

        # An hour later the refusal has expired: asked at that time, the offering is available again.
        await env.sleep(timedelta(hours=1, seconds=5))
        later = await env.get_current_time()
        answer = await offerings_memory.ask(client, OfferingsQuestion(
            subscription=SUBSCRIPTION, location=LOCATION, offerings=zones, at=later))
        assert answer.available == zones
        # The next report drops the expired entry: the memory (and the UI) lists only what is in force.
        await offerings_memory.tell(client, RefusalReport(offering=zones[1], code="AllocationFailed"),
                                    task_queue)
        assert [(r.zone, r.code) for r in await entries(client)] == [("*", "AllocationFailed")]
        assert "zone 1" not in await current_details(client)


async def test_memory_continues_as_new_keeping_current_entries_on_its_own_queue(
        workflow_env: WorkflowEnvironment) -> None:
    task_queue = f"offerings-{uuid.uuid4()}"
    env = workflow_env
    async with memory_worker(env.client, task_queue), \
            Worker(env.client, task_queue=task_queue, workflows=ALL_WORKFLOWS, max_cached_workflows=0,
                   workflow_runner=workflow_runner()):
        client = env.client
        # Started on the machines' queue, as before the memory had a queue of its own.
        handle = await client.start_workflow(
            OFFERINGS_WORKFLOW_TYPE, OfferingsMemory(subscription=SUBSCRIPTION, location=LOCATION, history_limit=100),
            id=MEMORY_ID, task_queue=task_queue)
        sizes = [f"Standard_D{n}s_v5" for n in range(2, 32)]
        for size in sizes:  # one at a time: each update is a few history events
            await offerings_memory.tell(client, RefusalReport(offering=offering(size), code="AllocationFailed"),
                                        task_queue)
        description = await client.get_workflow_handle(MEMORY_ID).describe()
        assert description.run_id != handle.result_run_id  # continued as new at least once...
        assert description.task_queue == offerings_task_queue(task_queue)  # ...onto its own queue
        assert sorted(r.vm_size for r in await entries(client)) == sorted(sizes)


async def test_the_ui_shows_who_tries_which_offering_until_it_is_released(workflow_env: WorkflowEnvironment) -> None:
    task_queue = f"offerings-{uuid.uuid4()}"
    env = workflow_env
    async with memory_worker(env.client, task_queue):
        client = env.client
        request = ClaimRequest(subscription=SUBSCRIPTION, location=LOCATION, offerings=[offering()], machine="rg/vm1")
        assert (await offerings_memory.claim(client, request, task_queue)).offering == offering()
        details = await current_details(client)
        assert "Nothing refused." in details and "every offering may be tried" not in details
        assert "| Standard_D4s_v5 in zone 1 | machine/rg/vm1 |" in details
        release = ProbeRelease(subscription=SUBSCRIPTION, location=LOCATION, machine="rg/vm1", reason="deleted")
        assert await offerings_memory.release(client, release) == 1
        details = await current_details(client)
        assert "machine/rg/vm1" not in details and "Nothing refused: every offering may be tried." in details
