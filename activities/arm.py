"""Small helpers every activity module shares: classified calls, heartbeating LRO waits (ownership: ownership.py)."""

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any, TypeVar

from azure.core.exceptions import HttpResponseError, ResourceNotFoundError
from azure.core.polling import AsyncLROPoller
from temporalio import activity

from activities.errors import classify

T = TypeVar("T")

DEFAULT_HEARTBEAT_EVERY = timedelta(seconds=10)
# An operation Azure ends within this needs no continuation token in history (a heartbeat is a write on the
# Temporal server): a retry without one checks Azure afresh, as after a crash before any heartbeat.
FIRST_HEARTBEAT_AFTER = timedelta(seconds=1)


@asynccontextmanager
async def classified(action: str) -> AsyncIterator[None]:
    """Re-raise Azure exceptions as our ApplicationErrors, naming the action that failed."""
    try:
        yield
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        mapped = classify(exc, action)
        if mapped is None or mapped is exc:
            raise
        raise mapped from exc


def resource_name(arm_id: str) -> str:
    return arm_id.rstrip("/").rsplit("/", 1)[-1]


def log(machine: str, message: str, *args: Any) -> None:
    """Every driver log line names the machine, so a fleet's logs can be grepped per machine."""
    if activity.in_activity():
        activity.logger.info(f"[{machine}] {message}", *args)


def log_start(machine: str, message: str, *args: Any) -> None:
    """A step as it starts, or a read's answer: debug, as the workflow's own (AZMC_LOG_LEVEL); its outcome is info."""
    if activity.in_activity():
        activity.logger.debug(f"[{machine}] {message}", *args)


def _heartbeat_every() -> float:
    if activity.in_activity():
        timeout = activity.info().heartbeat_timeout
        if timeout:
            return max(timeout.total_seconds() / 3, 0.05)
    return DEFAULT_HEARTBEAT_EVERY.total_seconds()


def resume_token() -> str | None:
    """The poller continuation token a previous attempt of this activity heartbeated, if any."""
    if not activity.in_activity():
        return None
    details = activity.info().heartbeat_details
    if details and isinstance(details[0], str) and details[0]:
        return details[0]
    return None


async def wait_heartbeating(poller: AsyncLROPoller[T]) -> T:
    """Wait for a long-running operation, heartbeating its continuation token so a retry resumes it."""
    return await heartbeat_until(poller.result(), poller.continuation_token())


async def heartbeat_until(work: Awaitable[T], details: str) -> T:
    """Await `work`, heartbeating `details` (what a retry should resume) from FIRST_HEARTBEAT_AFTER until done."""
    result = asyncio.ensure_future(work)
    wait = min(FIRST_HEARTBEAT_AFTER.total_seconds(), _heartbeat_every())
    try:
        while True:
            done, _ = await asyncio.wait({result}, timeout=wait)
            if done:
                return result.result()
            if activity.in_activity():
                activity.heartbeat(details)
            wait = _heartbeat_every()
    finally:
        if not result.done():
            result.cancel()


async def heartbeating(work: Awaitable[T]) -> T:
    """Await a short call, heartbeating (no details: there is nothing to resume) once it runs past
    FIRST_HEARTBEAT_AFTER: its workflow gives it a heartbeat timeout (policies.SHORT_HEARTBEAT) far below
    its start-to-close, so a dead worker's call is retried within seconds while a slow one runs on. A local
    activity cannot heartbeat (its workflow task's timeout notices a dead worker): it just awaits."""
    if activity.in_activity() and activity.info().is_local:
        return await work
    return await heartbeat_until(work, "")


async def get_or_none(call: Any) -> Any:
    """Await an SDK GET; None on 404 (absence is an answer, not an error)."""
    try:
        return await call
    except ResourceNotFoundError:
        return None


async def resume_operation(
    machine: str, start: Callable[[str], Awaitable[AsyncLROPoller[T]]]
) -> tuple[bool, T | None]:
    """Finish the operation a previous attempt heartbeated; (False, None) when there is none to finish.

    An operation that failed, or that Azure no longer knows, is not retried by polling it again: the
    token is cleared (so later attempts do not trip over it) and the caller checks and starts over.
    Connection errors propagate: the operation may still be fine, and the next attempt resumes it.
    """
    token = resume_token()
    if not token:
        return False, None
    try:
        log(machine, "resuming the operation a previous attempt started")
        return True, await wait_heartbeating(await start(token))
    except (HttpResponseError, ValueError) as exc:
        log(machine, "previous operation cannot be resumed (%s); checking again", type(exc).__name__)
        if activity.in_activity():
            activity.heartbeat("")
        return False, None
