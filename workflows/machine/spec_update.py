"""`update_spec`: a running machine takes a new spec's tag, pool, timeout and NIC membership changes in place.

A Temporal Update with a validator, so the caller hears at once (and nothing lands in history) when a
spec does not decode, names another machine, or changes what needs a new VM (models/spec_changes.py).
An accepted update stores the spec in the workflow's state and re-tags the VM, NIC and disks when the
machine is Running or Unknown; while it is being created the tags are applied once it runs (creation
already uses the new spec for what it creates). `azmc apply` and `temporal workflow update execute
--name update_spec` both send it.
"""

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any

from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.activity_io import ActivityName, TagsUpdated, UpdateTagsInput
    from models.naming import nic_name
    from models.search_attributes import AZMC_POOL
    from models.spec import MachineSpec
    from models.spec_changes import (
        SpecUpdate,
        changed_fields,
        nic_changed,
        refusal,
        removed_tag_keys,
        tags_changed,
        vm_patch_needed,
    )
    from models.status import OperationState, Phase, Stage
    from models.temporal_api import UPDATE_SPEC

from workflows import policies
from workflows.azure_calls import AzureCalls, error_text
from workflows.errors import invalid_input
from workflows.machine.bookkeeping import Machine
from workflows.machine.inputs import decode_single, decode_spec
from workflows.machine.state import LifecycleState

_TAGGABLE = (Phase.RUNNING, Phase.UNHEALTHY, Phase.UNKNOWN, Phase.MAINTENANCE)  # its VM exists
_CREATING = (Phase.PENDING, Phase.CREATING, Phase.CRASH_LOOP_BACK_OFF)


def decode_update(args: Sequence[Any]) -> MachineSpec:
    """The update's one argument: a MachineSpec (the SDK hands it over decoded, or raw, or as JSON text)."""
    if len(args) == 1 and not isinstance(args[0], RawValue):
        value = args[0]
        if isinstance(value, str | bytes):
            try:
                value = json.loads(value)
            except ValueError:
                raise invalid_input(f"{UPDATE_SPEC}: expected a JSON object (a MachineSpec), got a string") from None
        return decode_spec(value)
    return decode_spec(decode_single(list(args), UPDATE_SPEC))


def validate(state: LifecycleState | None, deleting: bool, args: Sequence[Any]) -> None:
    """Refuse, naming why, what the running machine cannot take (the validator: it must not change state)."""
    new = decode_update(args)
    if state is None:
        raise invalid_input(f"{UPDATE_SPEC}: the machine has not started (its input was not a valid spec)")
    if deleting or state.status.phase in (Phase.TERMINATING, Phase.DELETED):
        raise invalid_input(f"{UPDATE_SPEC}: machine {state.spec.name} is being deleted; apply the spec again "
                            "once it is Deleted")
    reason = refusal(state.spec, new)
    if reason:
        raise invalid_input(f"{UPDATE_SPEC} refused: {reason}")


async def _update_tags(azure: AzureCalls, remove: list[str]) -> TagsUpdated:
    with azure.trace.current():  # in the operation's trace, as every call of AzureCalls
        handle = workflow.start_activity(
            ActivityName.UPDATE_TAGS, UpdateTagsInput(spec=azure.spec, remove=remove), result_type=TagsUpdated,
            start_to_close_timeout=policies.NIC_TIMEOUT, heartbeat_timeout=policies.OPERATION_HEARTBEAT,
            retry_policy=policies.READ_RETRY, summary=f"Update tags of VM {azure.spec.name}, its NIC and disks",
        )
    return await handle


async def _apply_pending_nic(machine: Machine, azure: AzureCalls) -> str:
    """The NIC's memberships as the spec says (ensure_nic: one PUT when the NIC differs); one line, "" when
    none was pending. Never raises: a failure is shown and stays pending for the next health check."""
    state = machine.state
    if not state.nic_pending:
        return ""
    try:
        await azure.ensure_nic()
    except ActivityError as err:
        machine.operation(Stage.UPDATE_SPEC, OperationState.FAILED,
                          "updating the NIC failed; retried at the next health check", error=error_text(err))
        return f"updating the NIC failed ({error_text(err)}); retried at the next health check"
    state.nic_pending = False
    line = f"NIC {nic_name(azure.spec.name)} has the spec's security groups and load balancer pools"
    machine.operation(Stage.UPDATE_SPEC, OperationState.SUCCESSFUL, line)
    return line


async def apply_pending_tags(machine: Machine, azure: AzureCalls) -> tuple[TagsUpdated | None, str]:
    """Apply what an update left to do: the NIC's memberships, then the spec's tags on the machine's resources:
    (what was tagged, one line). Never raises: a failure is shown and stays pending for the next health check."""
    state = machine.state
    nic_line = await _apply_pending_nic(machine, azure)
    if not state.tags_pending:
        return None, nic_line
    done, line = await _apply_pending_tag_patches(machine, azure)
    return done, "; ".join(part for part in (nic_line, line) if part)


async def _apply_pending_tag_patches(machine: Machine, azure: AzureCalls) -> tuple[TagsUpdated | None, str]:
    state = machine.state
    try:
        done = await _update_tags(azure, state.tags_removed)
    except ActivityError as err:
        line = f"tagging failed ({error_text(err)}); retried at the next health check"
        machine.operation(Stage.UPDATE_SPEC, OperationState.FAILED, "tagging failed; retried at the next health check",
                          error=error_text(err))
        return None, line
    state.tags_pending, state.tags_removed = False, []
    line = f"tagged {', '.join(done.changed) or 'nothing: every tag was already right'}"
    if done.not_ours:
        line += f"; not ours, left alone: {', '.join(done.not_ours)}"
    machine.operation(Stage.UPDATE_SPEC, OperationState.SUCCESSFUL, line)
    return done, line


async def apply_update(
    machine: Machine, azure: AzureCalls, busy: asyncio.Lock, deleting: Callable[[], bool], new: MachineSpec,
) -> SpecUpdate:
    """Store the validated spec; re-tag Azure now when the machine runs, else once it does."""
    state = machine.state
    old = state.spec
    changed = changed_fields(old, new)
    if not changed:
        return SpecUpdate(message="unchanged: the machine already has this spec")
    state.spec, azure.spec = new, new
    state.status.pool = new.pool
    if new.pool != old.pool:
        workflow.upsert_search_attributes([AZMC_POOL.value_set(new.pool) if new.pool else AZMC_POOL.value_unset()])
    machine.operation(Stage.UPDATE_SPEC, OperationState.SUCCESSFUL, f"spec updated in place: {', '.join(changed)}")
    patch_vm = vm_patch_needed(changed)
    if not tags_changed(changed) and not nic_changed(changed) and not patch_vm:
        return SpecUpdate(changed=changed, message="updated in place (timeouts apply from the next wait)")
    if tags_changed(changed):
        state.tags_pending = True
        state.tags_removed = sorted({*state.tags_removed, *removed_tag_keys(old, new)})
    state.nic_pending = state.nic_pending or nic_changed(changed)
    # A health check holds the machine briefly; creation and deletion hold it long: never wait for those.
    await workflow.wait_condition(lambda: not busy.locked() or machine.phase not in _TAGGABLE or deleting())
    if machine.phase not in _TAGGABLE or deleting():
        if machine.phase in (Phase.TERMINATING, Phase.DELETED) or deleting():
            when = "never: it is being deleted"
        else:
            when = "once it runs" if machine.phase in _CREATING else "when it is created again"
        what = " and ".join(w for w, pending in (("tags", state.tags_pending),
                                                 ("the NIC's memberships", state.nic_pending),
                                                 ("VM changes", patch_vm)) if pending)
        return SpecUpdate(changed=changed,
                          message=f"updated; the machine is {machine.phase}: {what} reach Azure {when}")
    nic_was_pending = state.nic_pending
    async with busy:
        with machine.trace.beside("update", changed=", ".join(changed)):
            lines = [await _update_vm(machine, azure)] if patch_vm else []
            done, line = await apply_pending_tags(machine, azure)
    lines += [line] if line else []
    updated = [f"NIC {nic_name(new.name)}"] if nic_was_pending and not state.nic_pending else []
    return SpecUpdate(changed=changed, tagged=done.changed if done else [], updated=updated,
                      message=f"updated in place; {'; '.join(lines)}")


async def _update_vm(machine: Machine, azure: AzureCalls) -> str:
    """The identity and boot diagnostics of the running VM, one PATCH; a failure is shown, never raised (the
    spec is stored: the next update_spec or a new VM carries it)."""
    try:
        inventory = await azure.update_vm_in_place()
    except ActivityError as err:
        machine.operation(Stage.UPDATE_SPEC, OperationState.FAILED, "VM update in place failed", error=error_text(err))
        return f"VM update in place failed ({error_text(err)})"
    machine.inventory(inventory)
    line = "VM updated in place (identity, boot diagnostics)"
    machine.operation(Stage.UPDATE_SPEC, OperationState.SUCCESSFUL, line)
    return line
