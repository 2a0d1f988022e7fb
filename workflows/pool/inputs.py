"""Decoding a pool's start input and its updates' payloads: clear errors, never a stuck workflow task.

The start input is taken as plain JSON (Any) and validated here, so a bad PoolSpec fails the workflow at
once naming the field. Update payloads are checked in the updates' validators, so a bad `scale`,
`set_template` or `set_settings` is refused synchronously to its caller and never enters history. Numbers in
update payloads are strict: `{"replicas": "5"}` is refused, not read as 5.
"""

import json
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError
from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.durations import CHECK_BOUNDS, Duration
    from models.naming import pool_workflow_id
    from models.pool import MAX_REPLICAS, PoolSpec, setting_changes, template_revision
    from models.requests import DeleteRequest
    from models.temporal_api import POOL_WORKFLOW_TYPE
    from models.undecodable import Undecodable
    from models.validation import describe_validation_error

from workflows.errors import invalid_input
from workflows.pool.state import POOL_STATE, PoolState
from workflows.refusals import REFUSED_AT_START, refuse_input, refused_at_start


def _json_object(value: Any, what: str, refuse: Callable[[str], Exception] = invalid_input) -> dict[str, Any]:
    """`value` as a JSON object; `refuse` makes the error (the workflow's failure, or an update's refusal)."""
    if isinstance(value, str | bytes):  # `--input '"{...}"'`: JSON encoded twice
        try:
            value = json.loads(value)
        except ValueError:
            raise refuse(f"{what}: expected a JSON object, got a string") from None
    if not isinstance(value, dict):
        raise refuse(f"{what}: expected a JSON object, got {type(value).__name__}")
    return value


def decode_pool_input(args: Sequence[Any]) -> PoolState:
    """The state of a fresh pool from its PoolSpec, or the state a previous run carried through continue-as-new."""
    if refused_at_start():
        raise invalid_input(REFUSED_AT_START)
    if len(args) != 1:
        raise invalid_input(f"input: expected one PoolSpec, got {len(args)} values")
    if isinstance(args[0], Undecodable):  # workflows/refusals.py: fails the pool, or its task while a key is missing
        raise invalid_input(refuse_input(args[0], "input"))
    data = _json_object(args[0], "input (a PoolSpec)")
    if data.get("kind") == POOL_WORKFLOW_TYPE:  # an `azmc apply` document (kind: MachinePool) is an input too
        data = {key: item for key, item in data.items() if key != "kind"}
    try:
        if POOL_STATE.version_of(data) is not None:
            return POOL_STATE.decode(data)
        spec = PoolSpec.model_validate(data, context=CHECK_BOUNDS)
    except ValidationError as err:
        what = "carried pool state" if POOL_STATE.version_of(data) is not None else "PoolSpec"
        raise invalid_input(describe_validation_error(err, what)) from None
    expected = pool_workflow_id(spec.resource_group, spec.name)
    if workflow.info().workflow_id != expected:
        raise invalid_input(f"workflow id {workflow.info().workflow_id!r} does not match the spec: pool "
                      f"{spec.resource_group}/{spec.name} is managed only by workflow {expected!r} "
                      f"(start {POOL_WORKFLOW_TYPE} with --workflow-id {expected})")
    template = data.get("template")
    return PoolState(spec=spec, revision=template_revision(template if isinstance(template, dict) else {}),
                     life=workflow.info().run_id, adoption_due=True)


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScaleRequest(_Request):
    replicas: StrictInt = Field(ge=0, le=MAX_REPLICAS)


class SettingsRequest(_Request):
    """Any of models.pool.POOL_SETTINGS; the pool's spec validates the result as a whole (bounds, strategy)."""

    strategy: dict[str, StrictInt] | None = None
    max_replacements: StrictInt | None = None
    max_unhealthy: StrictInt | str | None = None  # a count or a share ("40%"): PoolSpec says which are valid
    preserve_failed: StrictInt | None = None
    preserve_timeout: Duration | None = None
    min_ready: Duration | None = None


class SetTemplateRequest(_Request):
    template: dict[str, Any]


def _one(args: tuple[Any, ...], what: str) -> dict[str, Any]:
    if len(args) != 1:
        raise ValueError(f"{what}: expected one JSON object, got {len(args)} values")
    return _json_object(args[0], what, ValueError)


def check_open(state: PoolState | None, deleting: bool, what: str) -> PoolState:
    if state is None:
        raise ValueError(f"{what}: the pool has no valid spec (see the workflow's failure)")
    if deleting:
        raise ValueError(f"{what}: the pool is being deleted")
    return state


def scale_request(args: tuple[Any, ...]) -> ScaleRequest:
    try:
        return ScaleRequest.model_validate(_one(args, "scale"))
    except ValidationError as err:
        raise ValueError(describe_validation_error(err, "scale request")) from None


def template_spec(state: PoolState, args: tuple[Any, ...]) -> tuple[PoolSpec, str]:
    """The pool's spec with the new template, validated as a whole (the machines' derived names too), and its
    revision: the target's or the last completed one's when equal to theirs (a rollback), else a new one."""
    try:
        request = SetTemplateRequest.model_validate(_one(args, "set_template"))
        spec = state.spec.with_changes(CHECK_BOUNDS, template=request.template)
    except ValidationError as err:
        raise ValueError(describe_validation_error(err, "set_template request")) from None
    if spec.template == state.spec.template:
        return spec, state.revision
    if state.current_template is not None and spec.template == state.current_template:
        return spec, state.current_revision
    return spec, template_revision(request.template)


def settings_spec(state: PoolState, args: tuple[Any, ...]) -> tuple[PoolSpec, list[str]]:
    """The pool's spec with the settings sent, validated as a whole, and what changed ("min_ready 0s -> 1m")."""
    try:
        raw = _one(args, "set_settings")
        request = SettingsRequest.model_validate(raw)
        sent = {key: raw[key] for key in request.model_fields_set}  # as written: errors quote what was sent
        if not sent:
            raise ValueError("set_settings: expected at least one of " + ", ".join(SettingsRequest.model_fields))
        if "strategy" in sent:  # the keys sent, over the pool's own: {"max_surge": 3} keeps max_unavailable
            sent["strategy"] = {**state.spec.settings["strategy"], **sent["strategy"]}
        spec = state.spec.with_changes(CHECK_BOUNDS, **sent)  # a new update: its bounds always apply
    except ValidationError as err:
        raise ValueError(describe_validation_error(err, "set_settings request")) from None
    return spec, setting_changes(state.spec.settings, spec.settings)


def delete_request(args: tuple[Any, ...]) -> DeleteRequest:
    """An unusable payload still deletes: the intent is clear even when the options are not."""
    try:
        return DeleteRequest.model_validate(args[0] if args and args[0] is not None else {})
    except ValidationError as err:
        return DeleteRequest(reason=f"delete signal with an invalid payload ({err.error_count()} errors)")
