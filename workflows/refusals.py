"""Messages whose payload this worker cannot decode: refused, never a workflow stuck on them.

The worker's converter hands a handler an `Undecodable` where a payload did not decode (codec/undecodable.py),
and the handler asks here what to do. The question is who could not read it:
- A message arriving now, sealed with a key this worker lacks and another live worker holds (`held_elsewhere`,
  codec/holders.py: a key rotation rolled out in the wrong order): it is left to that worker. The workflow task
  fails, Temporal hands it out again, and a worker with the key takes it; nothing is refused or lost.
- A message arriving now (the task is not a replay) that no live worker can read: the sender's fault, or a key
  this installation does not use. A signal is ignored, an update refused by its validator, a fresh start fails at
  once; each named, with why, in the log and the workflow's status.
- A message met while replaying: the worker that took it when it arrived could read it and acted on it; this
  one lacks a key the history uses. The workflow task fails (Temporal retries it) until a worker with the key
  replays it. Failing the workflow instead would close it, and the fleet sweep would collect its VM as an orphan.
A refusal that depends on keys is marked in the history (refused_signal, REFUSED_INPUT), so a
worker replaying the run, with the key or without, refuses that message again rather than reading it. A payload
no worker can read (too short, not JSON) is refused the same way by every worker: it needs no marker.
"""

from collections.abc import Callable, Sequence
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.status import RefusedMessage
    from models.undecodable import Undecodable

from workflows.errors import invalid_input

# A signal whose payload this worker cannot open (sealed with a key it lacks, which another worker may have) is
# refused and marked: a worker replaying the run, with the key or without, refuses it too. One marker per refused
# signal, named by the signal's number in the run (refused_signal); asked only on replay.
REFUSED_SIGNAL_PREFIX = "refused-signal-"
# A fresh start whose input or memo is sealed with a key this worker lacks fails at once, marked so that a worker
# replaying it (a query of the failed run), with the key or without, fails it the same way. Asked only on replay.
REFUSED_INPUT = "refused-input"


def refused_signal(number: int) -> str:
    return f"{REFUSED_SIGNAL_PREFIX}{number}"


SHOWN = 5  # refused messages a status keeps
# Marked refusals per run: each marker also adds its id to the run's TemporalChangeVersion search attribute,
# which holds 2 KB. Past this many, a refusal is not marked: every worker then refuses such a message on replay.
MARKED_PER_RUN = 20


class MissingKeyInHistory(RuntimeError):
    """A message this worker cannot read and another can (met while replaying, or sealed with a key another live
    worker holds): fails the workflow task (not an ApplicationError), never the workflow, so the run waits for a
    worker with the key."""


def found_in(args: Sequence[Any]) -> Undecodable | None:
    return next((arg for arg in args if isinstance(arg, Undecodable)), None)


def _replaying() -> bool:
    return workflow.unsafe.is_replaying()


def _waits_for_key(what: str, found: Undecodable) -> MissingKeyInHistory:
    return MissingKeyInHistory(f"{what}: {found.reason}; a worker with that key read it when it arrived, so this "
                               "workflow task fails until one replays it")


def _left_to_holder(what: str, found: Undecodable) -> MissingKeyInHistory:
    return MissingKeyInHistory(f"{what}: {found.reason}; another worker polling has that key, so this workflow "
                               "task fails until one of them takes it")


class Refusals:
    """One run's refused messages; `noted` shows each (the workflow's status), the log says it too."""

    def __init__(self, noted: Callable[[RefusedMessage], None]) -> None:
        self._noted = noted
        self._signals = 0  # every signal of the run, counted in history order: names its marker
        self._marked = 0

    def signal(self, name: str, args: Sequence[Any]) -> bool:
        """True when the signal must be ignored. Every signal handler asks first, so the count is the run's."""
        self._signals += 1
        marker = refused_signal(self._signals)
        found = found_in(args)
        if _replaying() and self._marked < MARKED_PER_RUN and workflow.patched(marker):
            self._marked += 1  # refused when it arrived by a worker without its key: refused again, even with it
            self._note("signal", name, found.reason if found else "its payload could not be decoded when it arrived")
            return True
        if found is None:
            return False
        if found.held_elsewhere and not _replaying():
            raise _left_to_holder(f"signal {name!r}", found)
        if found.depends_on_keys and self._marked < MARKED_PER_RUN:
            if _replaying():
                raise _waits_for_key(f"signal {name!r}", found)
            workflow.patched(marker)
            self._marked += 1
        self._note("signal", name, found.reason)
        return True

    def validate(self, name: str, args: Sequence[Any]) -> None:
        """An update's validator: refuse it (nothing enters the history) when a payload did not decode."""
        found = found_in(args)
        if found is None:
            return
        # A validator cannot leave an update to another worker: the sender hears at once, and may send it again.
        again = "; another worker polling has that key: send it again" if found.held_elsewhere else ""
        self._note("update", name, found.reason + again)
        raise invalid_input(f"{name}: {found.reason}{again}")

    def _note(self, kind: str, name: str, reason: str) -> None:
        if not _replaying():
            workflow.logger.warning(f"[{workflow.info().workflow_id}] refused {kind} {name!r}: {reason}")
        self._noted(RefusedMessage(kind=kind, name=name, reason=reason, at=workflow.now()))


def accepted(name: str, args: Sequence[Any]) -> None:
    """An accepted update's handler: its validator read every payload, so one that does not decode now is being
    replayed by a worker without the key."""
    found = found_in(args)
    if found is not None:
        raise _waits_for_key(f"update {name!r}", found)


def recent(shown: list[RefusedMessage], message: RefusedMessage) -> list[RefusedMessage]:
    return [*shown, message][-SHOWN:]


def refused_at_start() -> bool:
    """Replaying a run that failed at once on an input sealed with a key its worker lacked: fail it again."""
    return _replaying() and workflow.patched(REFUSED_INPUT)


REFUSED_AT_START = "the input could not be decoded when the workflow started"


def refuse_input(found: Undecodable, what: str) -> str:
    """The reason a fresh start fails with. Raises instead, failing the task, when azmc wrote the input (a
    continued run, a pool's machine), a worker replays it, or another live worker holds its key: a worker with
    the key can read it."""
    info = workflow.info()
    written_by_azmc = info.continued_run_id is not None or info.parent is not None
    if found.depends_on_keys:
        if found.held_elsewhere and not _replaying():
            raise _left_to_holder(what, found)
        if _replaying() or written_by_azmc:
            raise _waits_for_key(what, found)
        workflow.patched(REFUSED_INPUT)
    return f"{what}: {found.reason}"
