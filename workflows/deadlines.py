"""A time limit as a timer: it has passed once its timer fired, an event in history, never because two clock
readings compare so (a worker's clock in the task after a timed-out one can differ from its replay's).

The clock only sets how long the timer runs (`at` minus now, at least policies.SHORTEST_TIMER), and how long a
message says is left: replay compares neither.
"""

import asyncio
from collections.abc import Iterable
from datetime import datetime, timedelta

from temporalio import workflow

from workflows import policies


class Deadline:
    def __init__(self, at: datetime, what: str) -> None:
        self.at = at
        self._what = what
        self._timer = self._start()

    def _start(self) -> asyncio.Future[None]:
        return asyncio.ensure_future(
            workflow.sleep(max(self.at - workflow.now(), policies.SHORTEST_TIMER), summary=self._what))

    @property
    def passed(self) -> bool:
        return self._timer.done() and not self._timer.cancelled()

    def left(self) -> timedelta:
        """For a timer's duration or a message only, never for a decision."""
        return max(self.at - workflow.now(), timedelta(0))

    def restart(self, at: datetime) -> None:
        """The limit counts anew (a creation that waited for quota, workflows/machine/fallback.py): a new timer."""
        self.cancel()
        self.at = at
        self._timer = self._start()

    def cancel(self) -> None:
        """Not needed any more: the timer ends now, so it wakes nothing later."""
        if not self._timer.done():
            self._timer.cancel()


def timeout_clear_of(interval: timedelta, deadlines: Iterable[Deadline]) -> timedelta | None:
    """`interval` as a wait's timeout, or None (the wait ends on a deadline alone) when a deadline ends within it or
    just after: two timers ending together make the wait that ends on one cancel the other after it fired, which
    fails the workflow task."""
    return interval if all(interval + policies.SHORTEST_TIMER < d.left() for d in deadlines) else None
