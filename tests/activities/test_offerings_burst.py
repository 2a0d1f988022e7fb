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

from activities.offerings import memory as offerings_memory
from cli.processes import temporal_binary
from cli.stack import ONE_PARTITION_FLAGS
from models.offering_claims import Claim, ClaimRequest
from models.offerings import Offering
from models.offerings_memory import RefusalReport, offerings_workflow_id
from models.search_attributes import ALL_KEYS
from workers.worker import offerings_worker

SUBSCRIPTION, LOCATION = "sub-burst", "westeurope"
ZONES = [Offering(vm_size="Standard_D2s_v5", zone=z, location=LOCATION, subscription=SUBSCRIPTION) for z in "123"]
BURST = 60


@dataclasses.dataclass
class Machines:
    """Machines asking one worker's pair of activities (sharing its view), as their activities would."""

    env: WorkflowEnvironment
    task_queue: str
    pair: list[Callable[..., Awaitable[Any]]]

    async def _run(self, which: int, arg: Any, machine: str) -> Any:
        activity_env = ActivityEnvironment(self.env.client)
        activity_env.info = dataclasses.replace(activity_env.info, workflow_id=f"machine/rg/{machine}",
                                                task_queue=self.task_queue)
        return await activity_env.run(self.pair[which], arg)

    async def claimed(self, machine: str, offerings: list[Offering] = ZONES) -> Claim:
        request = ClaimRequest(subscription=SUBSCRIPTION, location=LOCATION, offerings=offerings,
                               machine=f"rg/{machine}")
        return await self._run(0, request, machine)

    async def worked(self, machine: str, offering: Offering) -> None:
        report = RefusalReport(offering=offering, worked=True, machine=f"rg/{machine}")
        assert await self._run(1, report, machine) is None


@contextlib.asynccontextmanager
async def memory_of_one_worker() -> AsyncIterator[Machines]:
    """A dev server with one worker's Offerings workflow, and machines that ask it through that worker."""
    task_queue = f"offerings-{uuid.uuid4()}"
    env = await WorkflowEnvironment.start_local(dev_server_extra_args=ONE_PARTITION_FLAGS,
        dev_server_existing_path=temporal_binary(), ui=False, data_converter=pydantic_data_converter,
        search_attributes=list(ALL_KEYS))
    async with env, offerings_worker(env.client, task_queue):
        yield Machines(env, task_queue, offerings_memory.activities())


async def test_a_burst_of_machines_is_answered_with_one_update_to_the_memory() -> None:
    async with memory_of_one_worker() as machines:
        env, claimed, worked = machines.env, machines.claimed, machines.worked

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
    async with memory_of_one_worker() as machines:
        assert (await machines.claimed("prober", only)).offering == only[0]
        waiting = await machines.claimed("other", only)
        assert waiting.offering is None and waiting.probers == ["rg/prober"]
        assert (await machines.claimed("prober", only)).offering == only[0]  # its own probe, not the others' wait
        assert (await machines.claimed("another", only)).offering is None
