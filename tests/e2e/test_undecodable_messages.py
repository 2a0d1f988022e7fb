"""Issue 30's hang, through the real `temporal` and `azmc` CLIs on a dev server with the codec on (an
`azmc worker` process, the emulator, the `azmc codec-server`): a payload nobody can decode never stops a
workflow.

- A machine sent signals sealed with a key no worker has, or too short to be a ciphertext, ignores them,
  names them in its status and `azmc describe`, keeps ignoring them after its worker restarts (a replay), and
  `delete` still deletes it.
- The shared memory of offerings refuses such `claim` and `refused` updates at once, and the next machine
  claims from it as usual.
- A workflow started with such an input fails at once naming why, without a call to Azure.
"""

import asyncio
import base64
import subprocess
import sys

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ApplicationError

from cli.processes import temporal_binary
from emulator.seed import SEED_LOCATION, SEED_SUBSCRIPTION
from models.naming import workflow_id
from models.offerings_memory import offerings_workflow_id
from models.status import MachineStatus, Phase
from models.temporal_api import OFFERINGS_CLAIM_UPDATE, OFFERINGS_REFUSED_UPDATE, WORKFLOW_TYPE
from tests.e2e.machines import running, spec
from tests.e2e.stack import ROOT, STACK_CONVERTER, Stack, cli_env
from tests.support.histories import task_failure_messages
from workers.settings import TASK_QUEUE

NOKEY = ("encryption-key-id=nokey", base64.b64encode(bytes(range(40))).decode())  # a key no process has
SHORT = ("encryption-key-id=e2e", "AAAA")  # the session's real key id, 3 bytes: shorter than a nonce
ISSUE = ("encryption-key-id=nokey", "AAAA")  # the issue's command, as written


def _sealed(payload: tuple[str, str]) -> list[str]:
    key, data = payload
    return ["--input-meta", "encoding=binary/encrypted", "--input-meta", key, "--input-base64", "--input", data]


def _temporal(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    """Without the codec server: the payloads go as given (through it they would be sealed once more)."""
    return subprocess.run([temporal_binary(), *args, "--address", stack.address], capture_output=True, text=True,
                          timeout=60, env=cli_env(stack.address))


def _azmc(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=cli_env(stack.address, stack.codec_url),
                          capture_output=True, text=True, timeout=120)


async def _refused(handle: WorkflowHandle, count: int) -> MachineStatus:
    for _ in range(200):
        status = await handle.query("status", result_type=MachineStatus)
        if len(status.refused) >= count:
            return status
        await asyncio.sleep(0.2)
    raise AssertionError(f"not {count} refused: {status.model_dump_json(indent=1)}")


def test_a_machine_ignores_undecodable_signals_and_delete_still_deletes_it(stack: Stack) -> None:
    item = spec("undec-sig")
    wf = workflow_id(item.resource_group, item.name)

    client = asyncio.run(running(stack, item))
    for name, payload in (("reconcile", ISSUE), ("reconcile", NOKEY), ("delete", SHORT), ("preserve", NOKEY)):
        sent = _temporal(stack, "workflow", "signal", "-w", wf, "--name", name, *_sealed(payload))
        assert sent.returncode == 0, sent.stderr
    refusal = _temporal(stack, "workflow", "update", "execute", "-w", wf, "--name", "update_spec", *_sealed(NOKEY))
    assert refusal.returncode != 0 and "codec key 'nokey'" in refusal.stderr, refusal.stderr

    async def refused() -> MachineStatus:
        return await _refused(client.get_workflow_handle(wf), 5)

    status = asyncio.run(refused())
    assert status.phase == Phase.RUNNING and status.preserved is False
    assert [(m.kind, m.name) for m in status.refused] == [
        ("signal", "reconcile"), ("signal", "reconcile"), ("signal", "delete"), ("signal", "preserve"),
        ("update", "update_spec")]
    assert "3 bytes, shorter than an AES-GCM nonce and tag" in status.refused[0].reason
    assert "codec key 'nokey', which this process does not have (keys: e2e)" in status.refused[1].reason
    described = _azmc(stack, "describe", item.name)
    assert described.returncode == 0 and "Refused" in described.stdout and "'nokey'" in described.stdout

    # A new worker replays the history: the refusals stand (the key refusal is marked), nothing stops.
    stack.worker.kill()
    stack.worker.start()
    deleted = _azmc(stack, "delete", item.name, "--wait")
    assert deleted.returncode == 0, deleted.stderr

    async def after() -> tuple[MachineStatus, list[str]]:
        handle = client.get_workflow_handle(wf, result_type=MachineStatus)
        return await handle.result(), await task_failure_messages(handle)

    final, failures = asyncio.run(after())
    assert final.phase == Phase.DELETED and failures == []
    assert [r["name"] for r in stack.emulator.control.resources() if r["name"].startswith(item.name)] == []


def test_the_offerings_memory_refuses_undecodable_updates_and_machines_still_claim(stack: Stack) -> None:
    first, second = spec("undec-mem1"), spec("undec-mem2")
    memory = offerings_workflow_id(SEED_SUBSCRIPTION, SEED_LOCATION)

    client = asyncio.run(running(stack, first))  # its claim started the memory
    for name, payload in ((OFFERINGS_CLAIM_UPDATE, NOKEY), (OFFERINGS_REFUSED_UPDATE, SHORT)):
        refused = _temporal(stack, "workflow", "update", "execute", "-w", memory, "--name", name, *_sealed(payload))
        assert refused.returncode != 0, refused.stdout
        assert f"{name}: payload" in refused.stderr and "Traceback" not in refused.stderr, refused.stderr

    asyncio.run(running(stack, second))
    offerings = _azmc(stack, "offerings", "--location", SEED_LOCATION, "--subscription", SEED_SUBSCRIPTION)
    assert offerings.returncode == 0, offerings.stderr

    async def memory_history() -> tuple[WorkflowExecutionStatus | None, list[str], list[str]]:
        handle = client.get_workflow_handle(memory)
        claims = [event.workflow_execution_update_accepted_event_attributes.accepted_request.input.name
                  async for event in handle.fetch_history_events()
                  if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED]
        return (await handle.describe()).status, claims, await task_failure_messages(handle)

    state, updates, failures = asyncio.run(memory_history())
    assert state == WorkflowExecutionStatus.RUNNING and failures == []
    assert updates.count(OFFERINGS_CLAIM_UPDATE) >= 2  # both machines claimed; the bad updates left no trace


def test_an_undecodable_input_fails_the_workflow_at_once(stack: Stack) -> None:
    for name, payload, reason in (("undec-in1", NOKEY, "codec key 'nokey', which this process does not have"),
                                  ("undec-in2", SHORT, "shorter than an AES-GCM nonce and tag")):
        wf = workflow_id("azmc-demo", name)
        started = _temporal(stack, "workflow", "start", "--type", WORKFLOW_TYPE, "--task-queue", TASK_QUEUE,
                            "--workflow-id", wf, *_sealed(payload))
        assert started.returncode == 0, started.stderr

        async def failed(wf: str = wf) -> tuple[str, list[str], list[int]]:
            client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
            handle = client.get_workflow_handle(wf)
            try:
                await handle.result()
            except WorkflowFailureError as failure:
                events = [event.event_type async for event in handle.fetch_history_events()]
                assert isinstance(failure.cause, ApplicationError)
                return failure.cause.message, await task_failure_messages(handle), events
            raise AssertionError("the workflow did not fail")

        message, failures, events = asyncio.run(failed())
        assert message.startswith("input: ") and reason in message, message
        assert failures == [] and EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED not in events
