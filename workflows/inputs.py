"""Decoding the workflow's raw input inside the workflow, so bad input fails the workflow, not the task.

Had `run` declared `spec: MachineSpec`, the SDK would decode before our code runs, and a payload
that does not decode would fail the workflow *task* again and again, forever. Taking the raw
payload lets a bad spec fail the *workflow* within one task with a message naming the field.
"""

import json
from typing import Any

from pydantic import ValidationError
from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorType
    from models.spec import MachineSpec

from workflows.state import CARRIED_STATE_KIND, LifecycleState


def invalid_input(message: str) -> ApplicationError:
    return ApplicationError(message, type=ErrorType.INVALID_SPEC, non_retryable=True)


def describe_validation_error(error: ValidationError, prefix: str) -> str:
    """`name: lower-case letters...; data_disks.1.lun: duplicate lun 1` - every field named."""
    parts = []
    for item in error.errors():
        field = ".".join(str(p) for p in item["loc"]) or "(whole spec)"
        parts.append(f"{prefix}{field}: {item['msg']}")
    return "invalid MachineSpec: " + "; ".join(parts)


def _decode_json(raw: RawValue) -> Any:
    try:
        value = workflow.payload_converter().from_payload(raw.payload, None)
    except Exception as err:  # any converter failure means the same thing: not a JSON document
        encoding = raw.payload.metadata.get("encoding", b"").decode(errors="replace") or "none"
        raise invalid_input(
            f"input: the workflow input is not a JSON MachineSpec (payload encoding {encoding!r}): {err}"
        ) from None
    if isinstance(value, str | bytes):
        # `--input '"{...}"'`: a spec that was JSON-encoded twice.
        try:
            value = json.loads(value)
        except ValueError:
            raise invalid_input("input: expected a JSON object (a MachineSpec), got a string") from None
    return value


def decode_input(raw: RawValue | None) -> MachineSpec | LifecycleState:
    """A fresh MachineSpec, or the state a previous run carried through continue-as-new."""
    if raw is None:
        raise invalid_input("input: a MachineSpec JSON object is required")
    value = _decode_json(raw)
    if isinstance(value, dict) and value.get("kind") == CARRIED_STATE_KIND:
        return LifecycleState.model_validate(value)
    if not isinstance(value, dict):
        raise invalid_input(f"input: expected a JSON object (a MachineSpec), got {type(value).__name__}")
    try:
        return MachineSpec.model_validate(value)
    except ValidationError as err:
        raise invalid_input(describe_validation_error(err, "")) from None
