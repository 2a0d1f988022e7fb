"""The operator's path on a real Temporal dev server: `temporal workflow start/query/signal` with JSON,
search attributes registered as the docs say, the real driver against the emulator."""

import asyncio
import json
import time
from typing import Any

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from cli.stack import ONE_PARTITION_FLAGS
from emulator.seed import SEED_RESOURCE_GROUP
from models.naming import workflow_id
from models.search_attributes import ALL_KEYS, AZMC_PHASE
from models.status import MachineStatus, Phase
from models.temporal_api import WORKFLOW_TYPE
from tests.support.driver import emulator_driver
from tests.support.emulator import EmulatorHandle
from tests.workflows.helpers import lifecycle_worker, spec_dict

TEMPORAL_CLI = ".venv/bin/temporal"


async def _cli(client: Client, *args: str) -> str:
    address = client.service_client.config.target_host
    process = await asyncio.create_subprocess_exec(
        TEMPORAL_CLI, *args, "--address", address, "--namespace", client.namespace,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout=30)
    assert process.returncode == 0, err.decode()
    return out.decode()


async def _status_until(client: Client, wid: str, phase: Phase, timeout_s: float = 30) -> MachineStatus:
    handle = client.get_workflow_handle(wid)
    deadline = time.monotonic() + timeout_s
    while True:
        status = await handle.query("status", result_type=MachineStatus)
        if status.phase == phase or time.monotonic() > deadline:
            return status
        await asyncio.sleep(0.2)


async def test_operator_runs_a_machine_with_the_temporal_cli(emulator: EmulatorHandle) -> None:
    async with emulator_driver(emulator, "cli-tests", "cli-test") as driver:
        env = await WorkflowEnvironment.start_local(dev_server_extra_args=ONE_PARTITION_FLAGS,
            dev_server_existing_path=TEMPORAL_CLI, data_converter=pydantic_data_converter,
            search_attributes=list(ALL_KEYS), ui=False)
        async with env, lifecycle_worker(env.client, driver.activities()) as task_queue:
            wid = workflow_id(SEED_RESOURCE_GROUP, "vm1")
            spec: dict[str, Any] = spec_dict(subnet_id=emulator.subnet_id)
            await _cli(env.client, "workflow", "start", "--type", WORKFLOW_TYPE, "--task-queue", task_queue,
                       "--workflow-id", wid, "--input", json.dumps(spec))
            running = await _status_until(env.client, wid, Phase.RUNNING)
            assert running.phase == Phase.RUNNING, running.last_error
            queried = await _cli(env.client, "workflow", "query", "--workflow-id", wid, "--name", "status")
            assert '"phase": "Running"' in queried or '"phase":"Running"' in queried, queried
            await _cli(env.client, "workflow", "signal", "--workflow-id", wid, "--name", "delete",
                       "--input", json.dumps({"reason": "from the CLI"}))
            final = await env.client.get_workflow_handle(wid, result_type=MachineStatus).result()
            assert final.phase == Phase.DELETED
            described = await env.client.get_workflow_handle(wid).describe()
            assert described.typed_search_attributes.get(AZMC_PHASE) == "Deleted"
    assert [r for r in emulator.resources() if r["name"].startswith("vm1")] == []
