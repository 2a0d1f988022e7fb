"""Decoding the workflow's raw input inside the workflow, so bad input fails the workflow, not the task.

Had `run` declared `spec: MachineSpec`, the SDK would decode before our code runs, and a payload
that does not decode would fail the workflow *task* again and again, forever. Taking the raw
payloads lets a bad spec fail the *workflow* within one task with a message naming the field. The
same holds for everything else a starter chooses: the workflow type, the number of inputs, the
workflow id and the memo.
"""

import json
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError
from temporalio import workflow
from temporalio.common import RawValue

with workflow.unsafe.imports_passed_through():
    from models.durations import CHECK_BOUNDS
    from models.naming import workflow_id
    from models.requests import DeleteRequest, PreserveRequest, ReconcileRequest
    from models.spec import MachineSpec
    from models.temporal_api import WORKFLOW_TYPE
    from models.undecodable import Undecodable
    from models.validation import describe_validation_error

from workflows.errors import invalid_input
from workflows.machine.state import LIFECYCLE_STATE, LifecycleState
from workflows.refusals import refuse_input


def _decode_json(raw: RawValue) -> Any:
    try:
        value = workflow.payload_converter().from_payload(raw.payload)
    except Exception as err:  # any converter failure means the same thing: not a JSON document
        encoding = raw.payload.metadata.get("encoding", b"").decode(errors="replace") or "none"
        raise invalid_input(
            f"input: the workflow input is not a JSON MachineSpec (payload encoding {encoding!r}): {err}"
        ) from None
    if isinstance(value, Undecodable):  # a worker's converter: workflows/refusals.py says whose fault it is
        raise invalid_input(refuse_input(value, "input"))
    if isinstance(value, str | bytes):
        # `--input '"{...}"'`: a spec that was JSON-encoded twice.
        try:
            value = json.loads(value)
        except ValueError:
            raise invalid_input("input: expected a JSON object (a MachineSpec), got a string") from None
    return value


def check_workflow_type() -> None:
    """The worker serves every type sent to its task queue (a dynamic workflow), so a typo fails at once."""
    kind = workflow.info().workflow_type
    if kind != WORKFLOW_TYPE:
        raise invalid_input(f"workflow type {kind!r} is unknown on this task queue: start {WORKFLOW_TYPE!r}")


def decode_spec(value: Any) -> MachineSpec:
    """A new MachineSpec, its durations within their bounds."""
    if not isinstance(value, dict):
        raise invalid_input(f"input: expected a JSON object (a MachineSpec), got {type(value).__name__}")
    try:
        return MachineSpec.model_validate(value, context=CHECK_BOUNDS)
    except ValidationError as err:
        raise invalid_input(describe_validation_error(err)) from None


def decode_single(args: Sequence[RawValue], what: str) -> Any:
    """The one JSON value of a start or an update; none, or more than one, fails naming the count."""
    if not args:
        raise invalid_input(f"{what}: a MachineSpec JSON object is required")
    if len(args) > 1:
        raise invalid_input(f"{what}: expected one MachineSpec, got {len(args)} values (give the input once)")
    return _decode_json(args[0])


def decode_input(args: Sequence[RawValue]) -> MachineSpec | LifecycleState:
    """A fresh MachineSpec, or the state a previous run carried through continue-as-new."""
    value = decode_single(args, "input")
    if LIFECYCLE_STATE.version_of(value) is not None:
        try:
            return LIFECYCLE_STATE.decode(value)
        except ValidationError as err:
            raise invalid_input(describe_validation_error(
                err, f"carried state ({value['kind']}, the input of a continued run)")) from None
    return decode_spec(value)


def check_workflow_id(spec: MachineSpec) -> None:
    """One workflow per machine: its id is `machine/<resource_group>/<name>` of its own spec, no other."""
    actual, expected = workflow.info().workflow_id, workflow_id(spec.resource_group, spec.name)
    if actual != expected:
        raise invalid_input(
            f"workflow id {actual!r} does not match the spec: machine {spec.resource_group}/{spec.name} is "
            f"managed only by workflow {expected!r}, so that two workflows never manage one VM; "
            f"start it with --workflow-id {expected} (or `azmc apply`)"
        )


# The signals' payloads: one that does not validate still means what the signal says, with default options.

def delete_request(args: tuple[Any, ...]) -> DeleteRequest:
    """`delete`: the intent is clear even when the options are not: delete, without force."""
    try:
        return DeleteRequest.model_validate((args[0] if args else None) or {})
    except ValidationError as err:
        return DeleteRequest(reason=f"delete signal with an invalid payload ({err.error_count()} errors)")


def check_only(args: tuple[Any, ...]) -> bool:
    """`reconcile` with `check_only` (the sweep's): a payload that does not validate is a plain reconcile."""
    try:
        return ReconcileRequest.model_validate((args[0] if args else None) or {}).check_only
    except ValidationError:
        return False


def preserve_request(args: tuple[Any, ...]) -> PreserveRequest:
    try:
        return PreserveRequest.model_validate((args[0] if args else None) or {})
    except ValidationError as err:
        return PreserveRequest(reason=f"preserve signal with an invalid payload ({err.error_count()} errors)")
