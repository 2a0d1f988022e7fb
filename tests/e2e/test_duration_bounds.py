"""Durations out of bounds on the real stack (dev server, encrypted payloads, `azmc worker`): a machine started
through the SDK with raw JSON fails at once naming the field and the bounds; `azmc apply` and a flag refuse them
in one line."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError

from models.naming import workflow_id
from models.temporal_api import WORKFLOW_TYPE
from tests.e2e.machines import spec
from tests.e2e.stack import ROOT, STACK_CONVERTER, Stack, cli_env
from workers.settings import TASK_QUEUE


def _azmc(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=cli_env(stack.address, stack.codec_url),
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def test_a_raw_json_start_with_a_huge_creation_timeout_fails_at_once(stack: Stack) -> None:
    raw = {**spec("huge-timeout").model_dump(mode="json"), "timeouts": {"creation": "99999999999d"}}
    wf_id = workflow_id(raw["resource_group"], raw["name"])

    async def run() -> tuple[str, list[EventType.ValueType]]:
        client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
        handle = await client.start_workflow(WORKFLOW_TYPE, raw, id=wf_id, task_queue=TASK_QUEUE)
        events: list[EventType.ValueType] = []
        # Until it closed or a workflow task failed (which would be retried forever), whichever comes first.
        while EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in events:
            if (await handle.describe()).status != WorkflowExecutionStatus.RUNNING:
                break
            await asyncio.sleep(0.2)
            events = [event.event_type async for event in handle.fetch_history_events()]
        else:
            return "a workflow task failed", events
        try:
            await handle.result()
        except WorkflowFailureError as failure:
            return str(failure.cause), [event.event_type async for event in handle.fetch_history_events()]
        raise AssertionError("the machine started")

    message, events = asyncio.run(run())
    assert "timeouts.creation: '99999999999d' is above the maximum: give a duration from 1s to 30d" in message
    assert EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in events
    assert EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED not in events
    described = _azmc(stack, "describe", wf_id)
    assert "above the maximum" in described.stdout, described.stdout + described.stderr


def test_azmc_refuses_durations_out_of_bounds_in_one_line(stack: Stack, tmp_path: Path) -> None:
    file = tmp_path / "machine.json"
    file.write_text(json.dumps({**spec("short-checks").model_dump(mode="json"),
                                "timeouts": {"health_check_interval": "1ms"}}))
    applied = _azmc(stack, "apply", "-f", str(file))
    assert applied.returncode == 1 and "Traceback" not in applied.stderr
    assert "timeouts.health_check_interval: '1ms' is below the minimum: give a duration from 30s to 30d" in (
        applied.stderr)
    swept = _azmc(stack, "orphans", "--orphan-grace", "-5m")
    assert swept.returncode == 1 and swept.stderr.strip().splitlines() == [
        "error: invalid --orphan-grace: '-5m' is below the minimum: give a duration from 0s to 30d"]
