"""AZMC_SHARED_OFFERINGS=false (the capacity bench's baseline): the ask/tell activities give each machine a
memory of its own, so one machine's refusal is not seen by another; shared (the default) it is."""

import dataclasses
import uuid

import pytest
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment

from activities.offerings import memory as offerings_memory
from models.offering_claims import Claim, ClaimRequest
from models.offerings import Offering
from models.offerings_memory import RefusalReport
from workers.worker import offerings_worker

pytestmark = pytest.mark.shared_server  # workers on task queues of their own, stopped at the end

# A subscription of this module's own: on the shared server a memory id another module used names its closed run.
SUBSCRIPTION, LOCATION = f"sub-{uuid.uuid4().hex[:8]}", "westeurope"
ZONES = [Offering(vm_size="Standard_D2s_v5", zone=z, location=LOCATION, subscription=SUBSCRIPTION) for z in "123"]


async def test_a_private_memory_is_seen_only_by_its_machine_and_a_shared_one_by_all(
        workflow_env: WorkflowEnvironment) -> None:
    task_queue = f"offerings-{uuid.uuid4()}"
    env = workflow_env
    async with offerings_worker(env.client, task_queue):

        def as_machine(name: str) -> ActivityEnvironment:
            activity_env = ActivityEnvironment(env.client)
            activity_env.info = dataclasses.replace(activity_env.info, workflow_id=f"machine/rg/{name}",
                                                    task_queue=task_queue)
            return activity_env

        async def claimed(shared: bool, machine: str) -> str:
            """The zone the memory gives the machine to try now."""
            ask, *_ = offerings_memory.activities(shared)
            request = ClaimRequest(subscription=SUBSCRIPTION, location=LOCATION, offerings=ZONES,
                                   machine=f"rg/{machine}")
            claim: Claim = await as_machine(machine).run(ask, request)
            assert claim.offering is not None
            return claim.offering.zone

        async def refused(shared: bool, machine: str) -> None:
            _, tell, *_ = offerings_memory.activities(shared)
            report = RefusalReport(offering=ZONES[0], code="ZonalAllocationFailed", machine=f"rg/{machine}")
            assert await as_machine(machine).run(tell, report) is not None

        assert await claimed(shared=False, machine="vm1") == "1"
        await refused(shared=False, machine="vm1")
        assert await claimed(shared=False, machine="vm1") == "2"
        assert await claimed(shared=False, machine="vm2") == "1"  # vm1's refusal is vm1's alone
        assert await claimed(shared=True, machine="vm2") == "1"
        await refused(shared=True, machine="vm2")
        assert await claimed(shared=True, machine="vm3") == "2"  # shared: vm2's refusal spares vm3 the attempt
