"""A deploy on the dev server: a fleet and a pool on version A; version B, whose workflow code could not replay
A's histories, is made current; one fleet sweep moves every idle run to B, a machine mid-creation finishes on
A first, no workflow task fails, and A drains (docs/upgrades.md)."""

import asyncio
import re
import subprocess
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta
from typing import Any

import pytest
from temporalio import workflow
from temporalio.api.enums.v1 import EventType
from temporalio.api.enums.v1.workflow_pb2 import VERSIONING_BEHAVIOR_PINNED
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.common import RawValue, WorkerDeploymentVersion
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer, Worker
from temporalio.workflow import NondeterminismError

from activities.audit import AuditInterceptor
from cli.stack import ONE_PARTITION_FLAGS
from models.naming import workflow_id as machine_id
from models.offerings_memory import offerings_task_queue
from models.pool import PoolStatus
from models.search_attributes import ALL_KEYS
from models.status import MachineStatus, Phase
from models.sweep import SWEEP_WORKFLOW, SweepInput, SweepReport
from tests.support.driver import emulator_driver
from tests.support.emulator import EmulatorHandle
from tests.workflows.conftest import INSTALLATION, TOKEN
from tests.workflows.helpers import (
    DEV_SERVER,
    REAL_TIME,
    RESOURCE_GROUP,
    TEST_CONVERTER,
    in_phase,
    spec_dict,
    start_machine,
    wait_for,
)
from tests.workflows.pools import pool_dict, settled, start_pool, wait_pool
from workers.deployment import make_current, pinned
from workers.sandbox import workflow_runner
from workers.worker import paced, worker_client
from workflows.machine.workflow import MachineLifecycle
from workflows.offerings.workflow import Offerings
from workflows.pool.workflow import MachinePool
from workflows.registry import ALL_WORKFLOWS

pytestmark = pytest.mark.e2e

DEPLOYMENT = "azmc-upgrade-test"
# The server re-checks a draining version every second here (3 minutes by default), so A shows as drained soon.
FAST_DRAINAGE = ["--dynamic-config-value", "matching.wv.VersionDrainageStatusVisibilityGracePeriod=\"1s\"",
                 "--dynamic-config-value", "matching.wv.VersionDrainageStatusRefreshInterval=\"1s\""]


# Version B: every long-lived type starts each run with a timer that A's histories do not have, so B could not
# replay a run begun on A (a nondeterminism error): only a run that starts on B may run there.
@workflow.defn(dynamic=True)
class MachineLifecycleB(MachineLifecycle):
    @workflow.run
    async def run(self, args: Sequence[RawValue]) -> MachineStatus:
        await workflow.sleep(timedelta(milliseconds=1))
        return await super().run(args)


@workflow.defn(name="MachinePool")
class MachinePoolB(MachinePool):
    @workflow.run
    async def run(self, *args: Any) -> PoolStatus:
        await workflow.sleep(timedelta(milliseconds=1))
        return await super().run(*args)


@workflow.defn(name="Offerings")
class OfferingsB(Offerings):
    @workflow.run
    async def run(self, *args: Any) -> None:
        await workflow.sleep(timedelta(milliseconds=1))
        await super().run(*args)


CODE = {"A": ALL_WORKFLOWS, "B": [{MachineLifecycle: MachineLifecycleB, MachinePool: MachinePoolB}.get(w, w)
                                  for w in ALL_WORKFLOWS]}
MEMORY = {"A": [Offerings], "B": [OfferingsB]}


@pytest.fixture
async def server() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(dev_server_existing_path=DEV_SERVER, data_converter=TEST_CONVERTER,
                                                search_attributes=list(ALL_KEYS), ui=False,
                                                dev_server_extra_args=[*FAST_DRAINAGE, *ONE_PARTITION_FLAGS])
    async with env:
        yield env


@asynccontextmanager
async def version(client: Client, queue: str, build: str, activities: list[Callable[..., Any]]) -> AsyncIterator[None]:
    """The workers of an azmc process (machines, memory, paced Azure writes), as version `build` of the deployment."""
    client = worker_client(client)
    config = pinned(WorkerDeploymentVersion(DEPLOYMENT, build))
    async with Worker(client, task_queue=queue, workflows=CODE[build], activities=activities,
                      interceptors=[AuditInterceptor(client.data_converter)], workflow_runner=workflow_runner(),
                      deployment_config=config), \
            Worker(client, task_queue=offerings_task_queue(queue), workflows=MEMORY[build],
                   workflow_runner=workflow_runner(), deployment_config=config), \
            paced(client, queue, activities, deployment_config=config):
        yield


def replayer(build: str) -> Replayer:
    return Replayer(workflows=CODE[build], data_converter=TEST_CONVERTER, workflow_runner=workflow_runner())


async def runs(client: Client, workflow_id: str) -> list[tuple[str, WorkflowExecutionStatus | None]]:
    """(build id, status) of every run of `workflow_id`, oldest first."""
    found = []
    async for execution in client.list_workflows(f'WorkflowId = "{workflow_id}"'):
        described = await client.get_workflow_handle(workflow_id, run_id=execution.run_id).describe()
        info = described.raw_description.workflow_execution_info.versioning_info
        found.append((execution.start_time, info.deployment_version.build_id, execution.status))
    return [(build, status) for _, build, status in sorted(found, key=lambda run: run[0])]


async def latest_build(client: Client, workflow_id: str) -> str:
    described = await client.get_workflow_handle(workflow_id).describe()
    return described.raw_description.workflow_execution_info.versioning_info.deployment_version.build_id


async def failed_tasks(client: Client, workflow_id: str) -> int:
    count = 0
    async for execution in client.list_workflows(f'WorkflowId = "{workflow_id}"'):
        history = await client.get_workflow_handle(workflow_id, run_id=execution.run_id).fetch_history()
        count += sum(event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED for event in history.events)
    return count


def cli(env: WorkflowEnvironment, *args: str) -> str:
    address = env.client.service_client.config.target_host
    done = subprocess.run([DEV_SERVER, "worker", "deployment", *args, "--address", address],
                          capture_output=True, text=True, timeout=30, check=True)
    return done.stdout


async def eventually(check: Callable[[], Any], limit_s: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + limit_s
    while not await check():
        assert asyncio.get_running_loop().time() < deadline, "not reached in time"
        await asyncio.sleep(0.5)


async def test_a_deploy_moves_every_idle_run_and_a_creating_machine_finishes_first(
        server: WorkflowEnvironment, emulator: EmulatorHandle) -> None:
    client, queue = server.client, f"azmc-upgrade-{uuid.uuid4()}"
    subnet = emulator.subnet_id
    async with AsyncExitStack() as stack:
        driver = await stack.enter_async_context(emulator_driver(emulator, INSTALLATION, TOKEN))
        await stack.enter_async_context(version(client, queue, "A", driver.activities()))
        await make_current(client, DEPLOYMENT, "A")

        fleet = [await start_machine(client, queue, spec_dict(f"up{i}", subnet_id=subnet)) for i in range(3)]
        pool = await start_pool(client, queue, pool_dict(subnet, replicas=2))
        for handle in fleet:
            await wait_for(server, handle, in_phase(Phase.RUNNING), **REAL_TIME)
        settled_pool = await wait_pool(server, pool, settled(2), **REAL_TIME)
        children = [machine_id(RESOURCE_GROUP, machine.name) for machine in settled_pool.machines]
        # A machine whose VM takes 20 s to create: still creating when B becomes current.
        emulator.add_fault("virtualMachines.put", name="mid", status=0, delay_s=20, stage="operation")
        creating = await start_machine(client, queue, spec_dict("mid", subnet_id=subnet))

        async def vm_put() -> bool:
            return any(vm["name"] == "mid" for vm in emulator.resources("virtualMachines"))
        await eventually(vm_put)
        idle = [handle.id for handle in fleet] + [pool.id] + children
        assert {await latest_build(client, workflow_id) for workflow_id in [*idle, creating.id]} == {"A"}
        described = await fleet[0].describe()
        assert described.raw_description.workflow_execution_info.versioning_info.behavior == VERSIONING_BEHAVIOR_PINNED

        await stack.enter_async_context(version(client, queue, "B", driver.activities()))
        await make_current(client, DEPLOYMENT, "B")
        sweep = await client.start_workflow(SWEEP_WORKFLOW, SweepInput(), id=f"sweep-{uuid.uuid4()}", task_queue=queue,
                                            result_type=SweepReport)
        report = await sweep.result()
        memories = [m async for m in client.list_workflows('WorkflowType = "Offerings"')]
        assert set(report.upgrade_signalled) == {*idle, creating.id, *(m.id for m in memories)}
        assert not report.upgrades_left

        async def all_on_b() -> bool:
            return {await latest_build(client, workflow_id) for workflow_id in idle} == {"B"}
        await eventually(all_on_b)
        # Still creating, on A: its run finishes what it started, then moves at its next safe point.
        assert (await creating.query("status", result_type=MachineStatus)).phase == Phase.CREATING
        assert await latest_build(client, creating.id) == "A"

        async def created_then_moved() -> bool:
            return await latest_build(client, creating.id) == "B"
        await eventually(created_then_moved, limit_s=90)
        first, *later = await runs(client, creating.id)
        assert first == ("A", WorkflowExecutionStatus.CONTINUED_AS_NEW)
        assert later and later[-1][0] == "B"
        await wait_for(server, creating, in_phase(Phase.RUNNING), **REAL_TIME)  # after B's first timer
        for workflow_id in [*idle, creating.id]:
            assert (await runs(client, workflow_id))[-1] == ("B", WorkflowExecutionStatus.RUNNING), workflow_id
        for memory in memories:
            assert await latest_build(client, memory.id) == "B"

        for workflow_id in [*idle, creating.id, *(m.id for m in memories)]:
            assert await failed_tasks(client, workflow_id) == 0, workflow_id
        # Not vacuous: B's code cannot replay a run begun on A, A's can.
        begun_on_a = await client.get_workflow_handle(fleet[0].id, run_id=fleet[0].first_execution_run_id
                                                      ).fetch_history()
        await replayer("A").replay_workflow(begun_on_a)
        with pytest.raises(NondeterminismError):
            await replayer("B").replay_workflow(begun_on_a)

        async def a_drained() -> bool:
            return "drained" in cli(server, "describe-version", "--deployment-name", DEPLOYMENT,
                                    "--build-id", "A").lower()
        await eventually(a_drained)
        described = cli(server, "describe", "--name", DEPLOYMENT)
        assert re.search(r"CurrentVersionBuildID\s+B\n", described), described
        assert re.search(rf"{DEPLOYMENT}\s+A\s+drained\s", described), described
