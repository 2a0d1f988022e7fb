"""Retry-until-done for steps that must never be dropped: compensations and deletion stages."""

from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.errors import ErrorType
    from models.status import OperationState, Stage

from workflows import policies
from workflows.azure_calls import error_text, error_type, suggested_delay
from workflows.continuation import ContinueAsNewNeeded, history_is_long
from workflows.machine.bookkeeping import Machine

T = TypeVar("T")


async def until_done(
    machine: Machine, stage: Stage, description: str, action: Callable[[], Awaitable[T]]
) -> T:
    """Run `action` until it succeeds, waiting a capped backoff between tries, visibly.

    Every failure is recorded (status, current details with the next retry time) and retried:
    a NIC Azure keeps reserved or in use is retried until it is gone, never forgotten. While it
    waits, the step is listed in `status.stalled` with its error and next retry time.
    """
    keep_listed = False
    try:
        return await _retry(machine, stage, description, action)
    except ContinueAsNewNeeded:
        keep_listed = True  # the next run resumes the step; until then it still waits
        raise
    finally:
        if not keep_listed:
            machine.unstalled(description)


async def _retry(machine: Machine, stage: Stage, description: str, action: Callable[[], Awaitable[T]]) -> T:
    failures = 0
    while True:
        try:
            return await action()
        except ActivityError as err:
            failures += 1
            delay = policies.cleanup_backoff(failures, error_type(err), suggested_delay(err))
            machine.stalled(stage, description, error_text(err), failures, delay)
            machine.operation(
                stage, OperationState.FAILED, f"{description}: failure {failures}, retrying in {humanize(delay)}",
                error=error_text(err), retry_in=delay,
            )
            if history_is_long(machine.state.history_limit):
                # Retrying forever must not grow one history forever; the next run resumes here.
                raise ContinueAsNewNeeded(f"{description}: still failing after {failures} tries") from err
            await workflow.sleep(delay, summary=f"retry: {description}")


async def delete_or_gone(
    machine: Machine, stage: Stage, description: str, action: Callable[[], Awaitable[None]]
) -> bool:
    """A delete that counts NotFound as done and refuses (visibly) to touch what is not ours. True when the
    resource is gone (deleted, or not found); False when it was left alone, not being ours."""

    async def attempt() -> bool:
        try:
            await action()
        except ActivityError as err:
            kind = error_type(err)
            if kind == ErrorType.NOT_FOUND:
                return True
            if kind == ErrorType.NOT_OWNED:
                # Same name, not our tag: someone else's resource. Deleting it would be the worse bug.
                machine.operation(stage, OperationState.FAILED, f"{description}: skipped, not owned by azmc",
                                  error=error_text(err))
                return False
            raise
        return True

    gone = await until_done(machine, stage, description, attempt)
    machine.operation(stage, OperationState.SUCCESSFUL, f"{description}: done")
    return gone
