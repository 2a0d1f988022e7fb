"""A burst of machines asking the shared memory at once, on a real dev server: every machine gets its answer
(the server refuses an 11th update in flight to one workflow, which a machine per update met), at the cost
of one update, and "worked" told by every machine is told to the memory once."""

import asyncio
import contextlib
import dataclasses
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment

from activities import offerings_memory
from cli.processes import temporal_binary
from models.offering_claims import Claim, ClaimRequest
from models.offerings import Offering
from models.offerings_memory import RefusalReport, offerings_workflow_id
from workers.worker import offerings_worker
from workflows.search_attributes import ALL_KEYS

SUBSCRIPTION, LOCATION = "sub-burst", "westeurope"
ZONES = [Offering(vm_size="Standard_D2s_v5", zone=z, location=LOCATION, subscription=SUBSCRIPTION) for z in "123"]
BURST = 60


@contextlib.asynccontextmanager
async def memory_of_one_worker() -> AsyncIterator[tuple[WorkflowEnvironment, Callable[..., Awaitable[Any]]]]:
    """A dev server with one worker's Offerings workflow and its pair of activities; yields the environment
    and `ask(activity, arg, machine)`, the activity run as the named machine's would be."""
    task_queue = f"offerings-{uuid.uuid4()}"
    pair = offerings_memory.activities()  # one worker's pair, sharing its view
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_binary(), ui=False, data_converter=pydantic_data_converter,
        search_attributes=list(ALL_KEYS))
    async with env, offerings_worker(env.client, task_queue):

        async def run(which: int, arg: Any, machine: str) -> Any:
            activity_env = ActivityEnvironment(env.client)
            activity_env.info = dataclasses.replace(activity_env.info, workflow_id=f"machine/rg/{machine}",
                                                    task_queue=task_queue)
            return await activity_env.run(pair[which], arg)

        yield env, run


ASK, TELL = 0, 1


async def test_a_burst_of_machines_is_answered_with_one_update_to_the_memory() -> None:
    async with memory_of_one_worker() as (env, run):

        async def claimed(machine: str) -> Claim:
            request = ClaimRequest(subscription=SUBSCRIPTION, location=LOCATION, offerings=ZONES,
                                   machine=f"rg/{machine}")
            return await run(ASK, request, machine)

        async def worked(machine: str, offering: Offering) -> None:
            report = RefusalReport(offering=offering, worked=True, machine=f"rg/{machine}")
            assert await run(TELL, report, machine) is None

        first = await claimed("first")  # the probe of zone 1...
        assert first.offering == ZONES[0] and not first.proven
        await worked("first", ZONES[0])  # ...worked: zone 1 is proven, for every machine
        claims = await asyncio.gather(*(claimed(f"m{i}") for i in range(BURST)))
        assert all(c.offering == ZONES[0] and c.proven for c in claims)
        await asyncio.gather(*(worked(f"m{i}", ZONES[0]) for i in range(BURST)))

        memory = env.client.get_workflow_handle(offerings_workflow_id(SUBSCRIPTION, LOCATION))
        updates = [e async for e in memory.fetch_history_events()
                   if e.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED]
        # The probe's claim and its success, then one claim for the whole burst; its 60 successes were
        # told within the minute the first success was.
        assert len(updates) == 3, [u.workflow_execution_update_accepted_event_attributes.accepted_request
                                   .input.name for u in updates]


async def test_a_prober_whose_attempt_begins_again_gets_its_probe_back_while_the_others_wait() -> None:
    """The chaos test's stall: a worker died mid-attempt, so the prober asks again while its probe stands; the
    others' "wait for the probe" answers, kept fresh by their asks every few seconds, must not reach it (it
    waited for itself until the probe expired, 10 minutes, and every machine with it)."""
    only = ZONES[:1]
    async with memory_of_one_worker() as (_, run):

        async def claimed(machine: str) -> Claim:
            request = ClaimRequest(subscription=SUBSCRIPTION, location=LOCATION, offerings=only,
                                   machine=f"rg/{machine}")
            return await run(ASK, request, machine)

        assert (await claimed("prober")).offering == only[0]
        waiting = await claimed("other")
        assert waiting.offering is None and waiting.probers == ["rg/prober"]
        assert (await claimed("prober")).offering == only[0]  # its own probe, not the others' wait
        assert (await claimed("another")).offering is None
