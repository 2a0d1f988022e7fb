"""Payloads nobody can decode, sent with the SDK as raw payloads (tests/e2e/test_undecodable_messages.py
sends them with the `temporal` CLI to a machine and the offerings memory): a machine ignores such signals,
and its recorded history replays with the refusals (the key refusal is marked); a pool ignores such signals
and refuses such updates, naming them in its operations, and still deletes on `delete`; a pool and a fleet
sweep started with such an input fail at once, naming why."""

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.client import Client, WorkflowFailureError, WorkflowUpdateFailedError
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError

from models.naming import pool_workflow_id
from models.status import Phase
from models.sweep import SWEEP_WORKFLOW
from models.temporal_api import (
    DELETE_SIGNAL,
    MACHINE_PHASE_SIGNAL,
    POOL_WORKFLOW_TYPE,
    PRESERVE_SIGNAL,
    RECONCILE_SIGNAL,
    SCALE_UPDATE,
)
from tests.support.histories import task_failure_messages
from tests.workflows.helpers import RESOURCE_GROUP, in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.pools import pool_dict, pool_status, start_pool
from tests.workflows.stack import Stack

NOKEY = RawValue(Payload(metadata={"encoding": b"binary/encrypted", "encryption-key-id": b"nokey"},
                         data=bytes(range(40))))
SHORT = RawValue(Payload(metadata={"encoding": b"binary/encrypted", "encryption-key-id": b"workflow-tests"},
                         data=b"\x00\x00\x00"))
NOT_JSON = RawValue(Payload(metadata={"encoding": b"json/plain"}, data=b"{not json"))
UNKNOWN_ENCODING = RawValue(Payload(metadata={"encoding": b"binary/foo"}, data=b"x"))
NO_ENCODING = RawValue(Payload(data=b"x"))


def _raw(stack: Stack) -> Client:
    """A client without the codec: its raw payloads reach the server as given (the test client would seal them)."""
    return Client(stack.env.client.service_client, namespace=stack.env.client.namespace)


async def test_a_machine_refuses_undecodable_signals_and_its_history_replays(stack: Stack) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    raw = _raw(stack).get_workflow_handle(handle.id)
    for name, payload in ((RECONCILE_SIGNAL, NOKEY), (PRESERVE_SIGNAL, SHORT), (DELETE_SIGNAL, NOT_JSON)):
        await raw.signal(name, payload)
    status = await wait_for(stack.env, handle, lambda s: len(s.refused) == 3)
    assert [m.name for m in status.refused] == [RECONCILE_SIGNAL, PRESERVE_SIGNAL, DELETE_SIGNAL]
    assert status.phase == Phase.RUNNING and not status.preserved
    await handle.signal(DELETE_SIGNAL, {"reason": "readable"})
    assert (await handle.result()).phase == Phase.DELETED
    assert await task_failure_messages(handle) == []
    await record_history(handle, "undecodable_signals_refused_then_deleted")


async def test_a_refusal_says_what_was_wrong_in_an_operators_words(stack: Stack) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue, spec_dict(subnet_id=stack.emulator.subnet_id))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    raw = _raw(stack).get_workflow_handle(handle.id)
    for payload in (UNKNOWN_ENCODING, NO_ENCODING, NOT_JSON):
        await raw.signal(RECONCILE_SIGNAL, payload)
    status = await wait_for(stack.env, handle, lambda s: len(s.refused) == 3)
    unknown, missing, not_json = (message.reason for message in status.refused)
    assert unknown.startswith("payload encoding 'binary/foo' is not one azmc reads (binary/null, ") and \
        unknown.endswith("send the value as JSON (encoding json/plain), as the `temporal` CLI's --input does"), unknown
    assert missing.startswith("payload has no encoding in its metadata, so nothing says how to read it"), missing
    assert not_json == ("payload encoding 'json/plain' does not decode: its data is not a JSON value (Invalid JSON: "
                        "key must be a string at line 1 column 2)"), not_json
    assert not any(python in reason for reason in (unknown, missing, not_json)
                   for python in ("KeyError", "ValidationError", "RuntimeError"))
    await handle.signal(DELETE_SIGNAL, {"reason": "readable"})
    assert (await handle.result()).phase == Phase.DELETED


async def test_a_pool_refuses_undecodable_messages_and_still_deletes(stack: Stack) -> None:
    handle = await start_pool(stack.env.client, stack.task_queue, pool_dict(stack.emulator.subnet_id, 0))
    raw = _raw(stack).get_workflow_handle(handle.id)
    for name, payload in ((DELETE_SIGNAL, NOKEY), (MACHINE_PHASE_SIGNAL, SHORT), (DELETE_SIGNAL, NOT_JSON)):
        await raw.signal(name, payload)
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await raw.execute_update(SCALE_UPDATE, NOKEY)
    assert isinstance(refused.value.cause, ApplicationError)
    assert "scale: payload encrypted with codec key 'nokey'" in refused.value.cause.message

    status = await pool_status(handle)
    refusals = [op.description for op in status.recent_operations if op.kind == "refused"]
    assert len(refusals) == 4, status.recent_operations
    # The signals in the order sent; the update among them wherever its task came (a pool whose first task comes
    # after all four gets the update first: Temporal orders signals, not an update against them).
    signals = [refusal for refusal in refusals if refusal.startswith("signal")]
    assert len(signals) == 3 and sum(refusal.startswith("update 'scale'") for refusal in refusals) == 1, refusals
    assert signals[0].startswith("signal 'delete': payload encrypted with codec key 'nokey'")
    assert signals[1].startswith("signal 'machine_phase': payload under codec key 'workflow-tests' is 3 bytes")
    assert signals[2].startswith("signal 'delete': payload encoding 'json/plain' does not decode")
    assert status.phase != "Deleted"

    await handle.signal(DELETE_SIGNAL, {"reason": "readable"})
    assert (await handle.result()).phase == "Deleted"
    assert await task_failure_messages(handle) == []


@pytest.mark.parametrize(("kind", "workflow_id"), [(POOL_WORKFLOW_TYPE, pool_workflow_id(RESOURCE_GROUP, "web")),
                                                   (SWEEP_WORKFLOW, "azmc-fleet-sweep-undecodable")])
async def test_an_undecodable_input_fails_at_once(stack: Stack, kind: str, workflow_id: str) -> None:
    await _raw(stack).start_workflow(kind, NOKEY, id=workflow_id, task_queue=stack.task_queue)
    handle = stack.env.client.get_workflow_handle(workflow_id)
    with pytest.raises(WorkflowFailureError) as failed:
        await handle.result()
    assert isinstance(failed.value.cause, ApplicationError)
    assert failed.value.cause.message.startswith("input: payload encrypted with codec key 'nokey'")
    assert await task_failure_messages(handle) == [] and stack.emulator.requests()["total"] == 0
