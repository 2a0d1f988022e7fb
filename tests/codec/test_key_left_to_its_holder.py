"""Issue 37: a key rotation rolled out in the wrong order lost creations. Two worker processes (a real dev server,
the real driver, the emulator): A holds the new key k2, which `azmc` seals with; B has only k1.

- A machine whose start reaches B is left to A: B's workflow task fails naming k2 and that another worker has it,
  Temporal hands the task out again, and the machine never fails.
- Its first Azure call, sealed by A with k2, reaches B's activity worker first: B cannot read it, and the call is
  scheduled again until A's activity worker runs it; the creation attempt is never counted as failed.
- B says the missing key once in its log, and counts every payload it met under it (azmc_codec_key_missing).
- A `delete` sealed with k2 reaching B, while A (which reads k2) is running, is left to A, never refused: the
  machine is deleted.
"""

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.runtime import MetricBuffer, Runtime, TelemetryConfig

from cli.machines import apply
from codec.holders import KeyHolders
from codec.keys import new_key_json as key
from codec.keys import parse_keys
from codec.missing_keys import METRIC
from models.status import MachineStatus, Phase
from tests.codec.keyed import activity_side, keyed_client, rotation_stack, workflow_side
from tests.support.emulator import EmulatorHandle
from workers.replicas import keep_replicas_counted
from workers.worker import worker_client, worker_identity

pytestmark = pytest.mark.e2e
K1 = parse_keys(key("k1"), "test")
K2 = parse_keys(key("k2"), "test")
K12 = K1.merged(K2)  # k2 seals
K21 = K2.merged(K1)  # reads k2, still seals with k1: the first step of a rotation (docs/security.md)


async def _events(handle: WorkflowHandle, kind: "EventType.ValueType") -> list[object]:
    return [event async for event in handle.fetch_history_events() if event.event_type == kind]


async def _until(what: str, check: object, tries: int = 300) -> None:
    for _ in range(tries):
        if await check():
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"not {what}")


@asynccontextmanager
async def _watching(client: Client, queue: str, holders: KeyHolders) -> AsyncIterator[None]:
    """What `azmc worker` runs beside its workers: which keys the other live workers hold."""
    task = asyncio.create_task(keep_replicas_counted(client, queue, None, holders, worker_identity(client)))
    try:
        yield
    finally:
        task.cancel()


async def test_a_payload_under_a_key_one_worker_lacks_is_left_to_the_worker_with_it(
        emulator: EmulatorHandle, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="azmc.codec")
    metrics = MetricBuffer(10_000)
    async with rotation_stack(emulator) as stack, AsyncExitStack() as workers:
        env, driver, queue = stack.env, stack.driver, stack.queue
        holder = await keyed_client(env, K12)  # worker A, and `azmc` (k2 seals)
        holders = KeyHolders()
        lacking = worker_client(await keyed_client(env, K1, Runtime(telemetry=TelemetryConfig(metrics=metrics))),
                                holders)  # worker B, a process of its own
        await workers.enter_async_context(_watching(lacking, queue, holders))

        # A polls for activities only (its workflows run elsewhere); B is the only one taking workflow tasks.
        a_activities = await workers.enter_async_context(AsyncExitStack())  # closed early below
        await a_activities.enter_async_context(activity_side(holder, driver, queue))
        b_workflows = await workers.enter_async_context(AsyncExitStack())
        await b_workflows.enter_async_context(workflow_side(lacking, driver, queue))

        async def b_knows_a_holds_k2() -> bool:
            return holders.hold("k2")
        await _until("B knowing that A holds k2", b_knows_a_holds_k2)

        handle = holder.get_workflow_handle((await apply(holder, stack.spec, queue)).workflow_id,
                                            result_type=MachineStatus)

        async def b_left_it() -> bool:
            return bool(await _events(handle, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED))
        await _until("B failing the workflow task", b_left_it)
        (failed,) = await _events(handle, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
        message = failed.workflow_task_failed_event_attributes.failure.message
        assert "codec key 'k2', which this process does not have (keys: k1)" in message, message
        assert "another worker polling has that key" in message, message
        assert (await handle.describe()).status == WorkflowExecutionStatus.RUNNING

        # A takes the workflow; its first Azure call, sealed with k2, reaches B's activity worker alone.
        await b_workflows.aclose()
        await a_activities.aclose()
        await workers.enter_async_context(workflow_side(holder, driver, queue))
        await workers.enter_async_context(activity_side(lacking, driver, queue))

        async def b_could_not_read_a_call() -> bool:
            return bool(await _events(handle, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED))
        await _until("an Azure call failing on B", b_could_not_read_a_call)

        await workers.enter_async_context(activity_side(holder, driver, queue))
        final = await _status(handle, Phase.RUNNING)
        assert final.attempts == 1 and final.refused == [], final.model_dump_json(indent=1)
        assert [r["name"] for r in emulator.resources("virtualMachines")] == ["vm1"]

    said = [r.getMessage() for r in caplog.records if "codec key 'k2': this worker lacks it" in r.getMessage()]
    assert len(said) == 1 and "another worker polling has it" in said[0], said
    counted = [u for u in metrics.retrieve_updates() if u.metric.name == METRIC]
    assert counted and all(u.attributes.get("key_id") == "k2" for u in counted), [u.attributes for u in counted]
    assert sum(u.value for u in counted) >= 2  # the start, then an Azure call's input


async def test_a_signal_under_a_key_one_worker_lacks_is_left_to_the_worker_with_it(emulator: EmulatorHandle) -> None:
    async with rotation_stack(emulator) as stack, AsyncExitStack() as workers:
        env, driver, queue = stack.env, stack.driver, stack.queue
        reader = await keyed_client(env, K21)  # worker A: reads k2, seals with k1, as the whole history is
        holders = KeyHolders()
        lacking = worker_client(await keyed_client(env, K1, Runtime(telemetry=TelemetryConfig())), holders)
        await workers.enter_async_context(_watching(lacking, queue, holders))
        await workers.enter_async_context(activity_side(reader, driver, queue))
        b_workflows = await workers.enter_async_context(AsyncExitStack())
        await b_workflows.enter_async_context(workflow_side(lacking, driver, queue))
        await b_workflows.enter_async_context(activity_side(lacking, driver, queue))
        handle = lacking.get_workflow_handle((await apply(lacking, stack.spec, queue)).workflow_id,
                                             result_type=MachineStatus)
        await _status(handle, Phase.RUNNING)

        async def b_knows_a_holds_k2() -> bool:
            return holders.hold("k2")
        await _until("B knowing that A holds k2", b_knows_a_holds_k2)
        ahead = await keyed_client(env, K12)  # an `azmc` that seals with k2 already
        await ahead.get_workflow_handle(handle.id).signal("delete", {"reason": "sealed with k2"})

        async def b_left_it() -> bool:
            return bool(await _events(handle, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED))
        await _until("B failing the workflow task", b_left_it)
        failed, *_ = await _events(handle, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
        message = failed.workflow_task_failed_event_attributes.failure.message
        assert message.startswith("signal 'delete': payload encrypted with codec key 'k2'"), message
        assert "another worker polling has that key" in message, message

        await b_workflows.aclose()
        await workers.enter_async_context(workflow_side(reader, driver, queue))
        final = await handle.result()
        assert final.phase == Phase.DELETED and final.refused == [], final.model_dump_json(indent=1)
        assert emulator.resources("virtualMachines") == []


async def _status(handle: WorkflowHandle, phase: Phase) -> MachineStatus:
    for _ in range(600):
        status = await handle.query("status", result_type=MachineStatus)
        assert status.phase != Phase.FAILED, status.model_dump_json(indent=1)
        if status.phase == phase:
            return status
        await asyncio.sleep(0.2)
    raise AssertionError(f"not {phase}: {status.model_dump_json(indent=1)}")
