"""The audit trail: a machine hit by the seed scenario's AllocationFailed (the VM PUT's operation fails)
shows, via `azmc describe NAME --requests`, every Azure request of every activity attempt with Azure's
request ids, the failed VM PUT among them, and the failure's message names that PUT's request id. The
history is encrypted; the CLI reads it with the same keys."""

import asyncio
import json
import os
import subprocess
import sys
import uuid

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.audit import AuditInterceptor
from activities.config import AzureConfig
from activities.driver import AzureDriver
from cli.machines import apply
from cli.stack import ONE_PARTITION_FLAGS
from codec.converter import azmc_data_converter
from codec.keys import new_key_json, parse_keys
from models.search_attributes import ALL_KEYS
from models.spec import MachineSpec
from tests.support.emulator import EmulatorHandle
from tests.workflows.helpers import spec_dict
from workers.sandbox import workflow_runner
from workers.worker import offerings_worker, paced
from workflows.registry import ALL_WORKFLOWS

KEYS_JSON = new_key_json("audit-1")


async def _ensure_vm_failed(client: Client, wf_id: str) -> bool:
    async for event in client.get_workflow_handle(wf_id).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED:
            return True
    return False


def _describe(address: str, *flags: str) -> str:
    env = {**os.environ, "AZMC_CODEC_KEYS": KEYS_JSON, "COLUMNS": "250"}
    done = subprocess.run([sys.executable, "-m", "cli", "describe", "vm1", "--requests", *flags,
                           "--temporal-address", address], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


async def test_describe_requests_lists_the_failed_vm_put(emulator: EmulatorHandle) -> None:
    emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                       message="Allocation failed.", times=1, stage="operation")
    driver = await AzureDriver.open(AzureConfig(installation_id="audit", subscription_id=emulator.subscription_id,
                                                endpoint=emulator.url, emulator_token="audit"))
    env = await WorkflowEnvironment.start_local(dev_server_extra_args=ONE_PARTITION_FLAGS,
        dev_server_existing_path=".venv/bin/temporal", data_converter=azmc_data_converter(parse_keys(KEYS_JSON, "t")),
        search_attributes=list(ALL_KEYS), ui=False)
    queue = f"audit-{uuid.uuid4()}"
    try:
        audit = AuditInterceptor(env.client.data_converter)
        async with env, Worker(env.client, task_queue=queue, workflows=ALL_WORKFLOWS,
                               activities=driver.activities(), interceptors=[audit],
                               workflow_runner=workflow_runner()), \
                offerings_worker(env.client, queue), paced(env.client, queue, driver.activities()):
            spec = MachineSpec.model_validate(spec_dict(subnet_id=emulator.subnet_id, data_disks=[]))
            applied = await apply(env.client, spec, queue)
            for _ in range(150):
                if await _ensure_vm_failed(env.client, applied.workflow_id):
                    break
                await asyncio.sleep(0.2)
            address = env.client.service_client.config.target_host
            attempts = json.loads(await asyncio.to_thread(_describe, address, "--json"))
            table = await asyncio.to_thread(_describe, address)
    finally:
        await driver.close()
    nic = next(a for a in attempts if a["activity"] == "ensure_nic")
    assert nic["outcome"] == "completed" and "networkInterfaces.put" in [r["operation"] for r in nic["requests"]]
    failed = next(a for a in attempts if a["activity"] == "ensure_vm" and a["outcome"] != "completed")
    (put,) = [r for r in failed["requests"] if r["operation"] == "virtualMachines.put"]
    assert put["method"] == "PUT" and put["status"] == 201 and put["resource"].endswith("/virtualMachines/vm1")
    assert uuid.UUID(put["request_id"]) and uuid.UUID(put["correlation_id"]) and put["duration_ms"] >= 0
    assert "AllocationFailed" in failed["outcome"] and put["request_id"] in failed["outcome"]
    polls = [r for r in failed["requests"] if r["operation"] == "operations.poll"]
    assert polls and all(r["request_id"] and r["request_id"] != put["request_id"] for r in polls)
    assert "virtualMachines.put" in table and put["request_id"] in table
