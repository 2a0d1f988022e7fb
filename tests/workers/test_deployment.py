"""Worker Versioning from the operator's side (docs/upgrades.md): which version a starting worker makes
current, `azmc deployment promote` and `status`, and a server without Worker Versioning."""

import asyncio
import os
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from subprocess import PIPE, STDOUT

import pytest
from temporalio import workflow
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHandle
from temporalio.common import WorkerDeploymentVersion
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from cli.stack import ONE_PARTITION_FLAGS
from tests.workflows.helpers import DEV_SERVER, time_skipping_env
from workers.deployment import activate_if_due, current_build, describe, pinned
from workers.settings import load_settings

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).parents[2]
QUEUE = "deployment-test"


@workflow.defn(name="MachinePool")  # a type the sweep and the counts know; here only waiting for `finish`
class Waiting:
    def __init__(self) -> None:
        self._done = False

    @workflow.signal
    def finish(self) -> None:
        self._done = True

    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: self._done)


@pytest.fixture
async def server() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_local(
        dev_server_extra_args=ONE_PARTITION_FLAGS, dev_server_existing_path=DEV_SERVER, ui=False)
    async with env:
        yield env


@asynccontextmanager
async def worker(client: Client, deployment: str, build: str | None) -> AsyncIterator[None]:
    config = pinned(WorkerDeploymentVersion(deployment, build)) if build else None
    async with Worker(client, task_queue=QUEUE, workflows=[Waiting], workflow_runner=UnsandboxedWorkflowRunner(),
                      deployment_config=config):
        yield


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


async def run_azmc(address: str, *args: str, **settings: str) -> Done:
    """`azmc ARGS` as a process, without blocking the workers polling in this event loop."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("AZMC_")}
    env.update({"AZMC_TEMPORAL_ADDRESS": address, **settings})
    process = await asyncio.create_subprocess_exec(sys.executable, "-m", "cli", *args, cwd=ROOT, env=env,
                                                   stdout=PIPE, stderr=PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    return Done(process.returncode or 0, out.decode(), err.decode())


async def first_task_done(handle: WorkflowHandle) -> None:
    for _ in range(100):
        events = [event.event_type async for event in handle.fetch_history_events()]
        if EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED in events:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{handle.id}: no workflow task completed")


async def azmc(server: WorkflowEnvironment, *args: str) -> Done:
    return await run_azmc(server.client.service_client.config.target_host, "deployment", *args,
                          AZMC_TASK_QUEUE=QUEUE)


async def test_a_new_installation_takes_work_at_once_and_a_deploy_waits_for_the_operator(
        server: WorkflowEnvironment) -> None:
    client, name = server.client, f"d{uuid.uuid4().hex[:8]}"

    def settings(make_current: str) -> object:
        return load_settings(deployment_name=name, make_current=make_current)

    async with worker(client, name, "one"):
        # Started before any version is current: it waits to run, and does not count as begun unversioned.
        waiting = await client.start_workflow(Waiting.run, id="pool/rg/early", task_queue=QUEUE)
        assert await activate_if_due(client, settings("first"), "one") == "made version one current"
        await first_task_done(waiting)  # it runs, on the version made current
        assert current_build(await describe(client, name)) == "one"
        async with worker(client, name, "two"):
            said = await activate_if_due(client, settings("first"), "two")
            assert "one is current" in said and "promoted" in said
            assert current_build(await describe(client, name)) == "one"
            assert "one is current" in await activate_if_due(client, settings("never"), "two")
            assert await activate_if_due(client, settings("always"), "two") == "made version two current (was one)"
            assert current_build(await describe(client, name)) == "two"


async def test_promote_waits_for_the_runs_of_older_versions_and_refuses_while_unversioned_ones_remain(
        server: WorkflowEnvironment) -> None:
    client = server.client
    async with worker(client, "azmc", None):  # a run begun before Worker Versioning
        unversioned = await client.start_workflow(Waiting.run, id="pool/rg/unversioned", task_queue=QUEUE)
        await first_task_done(unversioned)  # else the first task, still pending, would go to the current version
    async with worker(client, "azmc", "one"), worker(client, "azmc", "two"):
        # This code cannot replay it (only 0.2 can): no version of it becomes current while it is open.
        refused = await azmc(server, "promote", "one", "--timeout", "5")
        assert refused.returncode == 1 and "1 runs begun before Worker Versioning remain" in refused.stderr, \
            refused.stderr
        said = await activate_if_due(client, load_settings(make_current="first"), "one")
        assert said.startswith("not made current: 1 runs begun before Worker Versioning remain"), said
        assert current_build(await describe(client, "azmc")) is None
        assert "(unversioned)  1 open runs" in (await azmc(server, "status")).stdout
        async with worker(client, "azmc", None):  # as 0.2 would: it ends on a worker that replays it
            await unversioned.signal(Waiting.finish)
            await unversioned.result()

        assert (await azmc(server, "promote", "one")).returncode == 0
        pinned_to_one = await client.start_workflow(Waiting.run, id="pool/rg/pinned", task_queue=QUEUE)
        await first_task_done(pinned_to_one)
        waited = await azmc(server, "promote", "two", "--timeout", "1")
        assert waited.returncode == 1, waited.stderr
        assert "two is current (was one)" in waited.stdout and "still pinned: one 1 runs" in waited.stdout
        assert "keep their workers running" in waited.stderr
        status = (await azmc(server, "status")).stdout
        assert "two  current" in status and "one  draining      1 open runs" in status, status

        await pinned_to_one.signal(Waiting.finish)  # a pinned run ends on its own version
        await pinned_to_one.result()
        done = await azmc(server, "promote", "two")
        assert done.returncode == 0 and "no run is left on an older version" in done.stdout, done.stdout


async def test_a_versioned_worker_on_a_server_without_versioning_stops_saying_so() -> None:
    async with time_skipping_env() as env:
        done = await run_azmc(env.client.service_client.config.target_host, "worker",
                              AZMC_AZURE_ENDPOINT="http://127.0.0.1:9", AZMC_METRICS_PORT="0")
    assert done.returncode == 1, done.stderr
    assert "has no Worker Versioning" in done.stderr and "AZMC_WORKER_VERSIONING=false" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


async def test_an_unversioned_worker_runs_on_a_server_without_versioning() -> None:
    """AZMC_WORKER_VERSIONING=false: the documented mode for such a server (docs/upgrades.md)."""
    async with time_skipping_env() as env:
        environment = {key: value for key, value in os.environ.items() if not key.startswith("AZMC_")}
        environment.update({"AZMC_TEMPORAL_ADDRESS": env.client.service_client.config.target_host,
                            "AZMC_AZURE_ENDPOINT": "http://127.0.0.1:9", "AZMC_METRICS_PORT": "0",
                            "AZMC_WORKER_VERSIONING": "false"})
        process = await asyncio.create_subprocess_exec(sys.executable, "-m", "cli", "worker", cwd=ROOT,
                                                       env=environment, stdout=PIPE, stderr=STDOUT)
        assert process.stdout is not None
        lines: list[str] = []
        try:
            while not any("worker started" in line for line in lines):
                line = (await asyncio.wait_for(process.stdout.readline(), timeout=60)).decode()
                assert line, "".join(lines)  # the worker exited
                lines.append(line)
        finally:
            process.terminate()
            await process.wait()
    assert "deployment_version=unversioned" in lines[-1], lines[-1]
