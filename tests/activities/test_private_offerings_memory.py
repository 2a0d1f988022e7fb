"""AZMC_SHARED_OFFERINGS=false (the capacity bench's baseline): the ask/tell activities give each machine a
memory of its own, so one machine's refusal is not seen by another; shared (the default) it is."""

import dataclasses
import uuid
from datetime import UTC, datetime

from temporalio.testing import ActivityEnvironment
from temporalio.worker import Worker

from activities import offerings_memory
from models.offerings import Availability, Offering
from models.offerings_memory import OfferingsQuestion, RefusalReport
from tests.workflows.helpers import time_skipping_env
from workflows import ALL_WORKFLOWS

SUBSCRIPTION, LOCATION = "sub-1", "westeurope"
ZONES = [Offering(vm_size="Standard_D2s_v5", zone=z, location=LOCATION, subscription=SUBSCRIPTION) for z in "123"]


async def test_a_private_memory_is_seen_only_by_its_machine_and_a_shared_one_by_all() -> None:
    task_queue = f"offerings-{uuid.uuid4()}"
    async with time_skipping_env() as env, Worker(env.client, task_queue=task_queue, workflows=ALL_WORKFLOWS):

        def as_machine(name: str) -> ActivityEnvironment:
            activity_env = ActivityEnvironment(env.client)
            activity_env.info = dataclasses.replace(activity_env.info, workflow_id=f"machine/rg/{name}",
                                                    task_queue=task_queue)
            return activity_env

        async def available(shared: bool, machine: str) -> list[str]:
            ask, _ = offerings_memory.activities(shared)
            question = OfferingsQuestion(subscription=SUBSCRIPTION, location=LOCATION, offerings=ZONES,
                                         at=datetime.now(UTC))
            answer: Availability = await as_machine(machine).run(ask, question)
            return [o.zone for o in answer.available]

        async def refused(shared: bool, machine: str) -> None:
            _, tell = offerings_memory.activities(shared)
            report = RefusalReport(offering=ZONES[0], code="ZonalAllocationFailed", machine=f"rg/{machine}")
            assert await as_machine(machine).run(tell, report) is not None

        await refused(shared=False, machine="vm1")
        assert await available(shared=False, machine="vm1") == ["2", "3"]
        assert await available(shared=False, machine="vm2") == ["1", "2", "3"]
        assert await available(shared=True, machine="vm2") == ["1", "2", "3"]
        await refused(shared=True, machine="vm2")
        assert await available(shared=True, machine="vm3") == ["2", "3"]
