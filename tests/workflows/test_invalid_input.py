"""Bad input fails the workflow at once, names the field, and never reaches Azure."""

import json
from typing import Any

import pytest
from temporalio.api.common.v1 import Payload
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowFailureError, WorkflowHandle
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError

from models.errors import ErrorType
from models.spec import MachineSpec
from models.status import MachineStatus, Phase
from models.temporal_api import WORKFLOW_TYPE
from tests.workflows.helpers import in_phase, record_history, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack
from workflows.machine.state import LIFECYCLE_STATE, LifecycleState

_DUPLICATE_LUN = spec_dict(data_disks=[{"lun": 1, "size_gb": 8}, {"lun": 1, "size_gb": 16}])
_CASES: list[tuple[str, Any, str]] = [
    ("wrong type", spec_dict(os_disk={"size_gb": "big"}), "os_disk.size_gb"),
    ("bad name", spec_dict(name="Bad_Name"), "name"),
    ("duplicate lun", _DUPLICATE_LUN, "duplicate lun 1"),
    ("unknown field", spec_dict(colour="blue"), "colour"),
    ("missing field", {k: v for k, v in spec_dict().items() if k != "subnet_id"}, "subnet_id"),
    ("not an object", [1, 2, 3], "expected a JSON object"),
    ("undecodable", RawValue(Payload(metadata={"encoding": b"json/plain"}, data=b"{not json")), "input:"),
    ("unknown encoding", RawValue(Payload(metadata={"encoding": b"binary/x-mine"}, data=b"\x00")), "input:"),
    ("malformed carried state", {"kind": LIFECYCLE_STATE.kind}, "invalid carried state"),
    ("carried state without status", {"kind": LIFECYCLE_STATE.kind, "spec": spec_dict()},
     "status: required field is missing"),
]


@pytest.mark.parametrize(("case", "payload", "named"), _CASES, ids=[c[0] for c in _CASES])
async def test_invalid_input_fails_fast_without_azure(stack: Stack, case: str, payload: Any, named: str) -> None:
    handle = await start_machine(stack.env.client, stack.task_queue, payload)
    await _fails_at_once_naming(stack, handle, named)


async def _fails_at_once_naming(stack: Stack, handle: WorkflowHandle, *named: str) -> str:
    with pytest.raises(WorkflowFailureError) as failure:
        await handle.result()
    events = [event.event_type async for event in handle.fetch_history_events()]
    cause = failure.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == ErrorType.INVALID_SPEC and cause.non_retryable
    for text in named:
        assert text in cause.message, cause.message
    # One workflow task, no task retries, no activity: the workflow itself failed, at once.
    assert EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED not in events
    assert EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED not in events
    assert stack.emulator.requests()["total"] == 0
    # The status query tells the same story as the failure.
    status = await handle.query("status", result_type=MachineStatus)
    assert status.phase == Phase.FAILED and named[0] in status.last_error
    return cause.message


async def test_two_inputs_fail_at_once(stack: Stack) -> None:
    """`temporal workflow start --input A --input B`: the workflow receives two arguments."""
    spec = spec_dict(subnet_id=stack.emulator.subnet_id)
    handle = await stack.env.client.start_workflow(WORKFLOW_TYPE, args=[spec, spec], id="machine/azmc-demo/vm1",
                                                   task_queue=stack.task_queue)
    await _fails_at_once_naming(stack, handle, "expected one MachineSpec, got 2 values")


async def test_no_input_fails_at_once(stack: Stack) -> None:
    handle = await stack.env.client.start_workflow(WORKFLOW_TYPE, id="machine/azmc-demo/vm1",
                                                   task_queue=stack.task_queue)
    await _fails_at_once_naming(stack, handle, "a MachineSpec JSON object is required")


async def test_mistyped_workflow_type_fails_at_once(stack: Stack) -> None:
    """On the azmc task queue a typo in --type fails the workflow, instead of its task failing forever."""
    handle = await stack.env.client.start_workflow("MachineLifecyle", spec_dict(), id="machine/azmc-demo/vm1",
                                                   task_queue=stack.task_queue)
    await _fails_at_once_naming(stack, handle, "'MachineLifecyle' is unknown", f"start {WORKFLOW_TYPE!r}")


async def test_carried_state_for_another_machine_fails_at_once(stack: Stack) -> None:
    """A continue-as-new input is checked like a spec: its machine must be the workflow id's."""
    state = LifecycleState.fresh(MachineSpec.model_validate(spec_dict(name="vm2")), 0)
    handle = await stack.env.client.start_workflow(WORKFLOW_TYPE, state.model_dump(mode="json"),
                                                   id="machine/azmc-demo/vm1", task_queue=stack.task_queue)
    await _fails_at_once_naming(stack, handle, "workflow id 'machine/azmc-demo/vm1' does not match",
                                "'machine/azmc-demo/vm2'")


async def test_spec_sent_as_json_text_is_accepted(stack: Stack) -> None:
    """`temporal workflow start --input` users sometimes quote the whole object; the spec still works."""
    handle = await start_machine(stack.env.client, stack.task_queue,
                                 json.dumps(spec_dict(subnet_id=stack.emulator.subnet_id)))
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    await handle.signal("delete")
    status = await handle.result()
    assert status.name == "vm1" and status.phase == Phase.DELETED
    assert stack.machine_resources() == []


async def test_invalid_spec_with_the_real_driver_sends_no_azure_request(stack: Stack) -> None:
    before = stack.emulator.requests()["total"]
    handle = await start_machine(stack.env.client, stack.task_queue,
                                 spec_dict(subnet_id=stack.emulator.subnet_id, data_disks=[{"lun": 70, "size_gb": 1}]))
    with pytest.raises(WorkflowFailureError) as failure:
        await handle.result()
    assert "data_disks.0.lun" in str(failure.value.cause)
    assert stack.emulator.requests()["total"] == before
    await record_history(handle, "invalid_spec_rejected")
    status = await handle.query("status", result_type=MachineStatus)
    assert status.phase == Phase.FAILED and "data_disks.0.lun" in status.last_error


async def test_names_azure_refuses_fail_at_once_with_the_values_escaped(stack: Stack) -> None:
    """Issue 37's probe through `temporal workflow start`: a plan that would put a path and a right-to-left override
    into an ARM URL, and a security group Azure refuses, fail before any Azure call; the failure shows them escaped."""
    plan = {"name": "p'|x", "publisher": "../..", "product": "\u00fc\u202e"}
    nsg = stack.emulator.subnet_id.split("/virtualNetworks/")[0] + "/networkSecurityGroups/a'b|c"
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, plan=plan, accept_terms=True, network_security_group_id=nsg)
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    message = await _fails_at_once_naming(stack, handle, "plan.publisher: marketplace publisher id '../..'",
                                          "plan.product: marketplace offer id '\u00fc\\u202e'",
                                          "network_security_group_id: network security group name \"a'b|c\"")
    assert "\u202e" not in message
