"""ARM's own budgets (reads, writes, deletes a second per subscription) held by every request a worker sends,
its operation-status polls included, and a 429 honoured for the whole process rather than the one call.

The writes' provider budgets are paced by the server across workers (models/pace.py); reads and polls run inside
activities, where no task queue can pace them, so each worker takes its share of the installation's rate:
the rate divided by the worker replicas polling the task queue (workers/replicas.py counts them).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from azure.core.pipeline import PipelineRequest, PipelineResponse
from azure.core.pipeline.policies import AsyncHTTPPolicy
from temporalio import activity

from activities import tracing
from activities.errors import retry_after_seconds
from activities.metrics import AzureMetrics

# A 429 whose Retry-After is this short (ARM's buckets refill every second) is waited out inside the call and the
# request sent again: ARM refused it before doing anything, and a failed poll would fail its whole write. A longer
# one (compute's per-minute policies), or none, fails the activity with it as the next attempt's delay.
WAIT_IN_CALL_S = 5.0
RESENDS = 2
_GRAPH = "/providers/microsoft.resourcegraph/"  # Resource Graph has budgets of its own, not ARM's


def kind_of(method: str) -> str:
    """ARM's budget a request spends, by its HTTP method (as ARM counts them)."""
    method = method.upper()
    if method in ("GET", "HEAD"):
        return "reads"
    return "deletes" if method == "DELETE" else "writes"


# After a 429 a worker's rate of that kind halves (down to a sixteenth) and doubles back each RECOVER_S without one:
# the budget was spent by someone else too, so the worker leaves them room until it is quiet again.
SLOWEST = 1 / 16
RECOVER_S = 10.0


@dataclass
class _Bucket:
    """Slots at `rate` a second handed out in turn (GCRA): each request reserves the next slot and sleeps until it,
    so a thousand waiting calls cost one sleep each; up to a second's worth may go at once after a quiet spell."""

    rate: float
    next_slot: float = 0.0  # when the next request may go, without the burst allowance
    held_until: float = 0.0
    slowed: float = 1.0  # the share of `rate` in force, below 1 after a 429
    slowed_at: float = 0.0

    def reserve(self, now: float, share: int) -> float:
        """Seconds until this request's slot."""
        if self.slowed < 1.0 and now - self.slowed_at >= RECOVER_S:
            self.slowed, self.slowed_at = min(1.0, self.slowed * 2), now
        interval = max(share, 1) / (self.rate * self.slowed)
        slot = max(self.next_slot, now - max(1.0 - interval, 0.0), self.held_until)
        self.next_slot = slot + interval
        return max(slot - now, 0.0)

    def refused(self, now: float, wait_s: float) -> None:
        if now >= self.held_until:  # the requests already on their way when the first 429 came slow nothing more
            self.slowed, self.slowed_at = max(self.slowed / 2, SLOWEST), now
        self.held_until = max(self.held_until, now + wait_s)


class ArmPace:
    """One per worker process: its buckets of ARM reads, writes and deletes, and what Azure's 429s asked of them."""

    def __init__(self, reads_per_s: float, writes_per_s: float, deletes_per_s: float) -> None:
        self._buckets = {"reads": _Bucket(reads_per_s), "writes": _Bucket(writes_per_s),
                         "deletes": _Bucket(deletes_per_s)}
        self.replicas = 1  # workers sharing the installation's budgets; set by workers/replicas.py
        self.throttled = 0  # 429s Azure answered this process, every one of them honoured
        # Told the task queue of an activity that met a 429 (workers/pace_brake.py slows that queue for every
        # worker); None: nobody listens (a tool, a test without a server).
        self.on_queue_throttled: Callable[[str], None] | None = None

    def rate(self, kind: str) -> float:
        """This process's share of the installation's rate of `kind` a second."""
        return self._buckets[kind].rate / max(self.replicas, 1)

    def held(self, kind: str) -> bool:
        """Is `kind` held for a 429's Retry-After right now?"""
        return time.monotonic() < self._buckets[kind].held_until

    async def take(self, kind: str) -> None:
        bucket = self._buckets[kind]
        for _ in range(100):  # a slot reserved before a 429's hold is taken again after it
            wait = bucket.reserve(time.monotonic(), self.replicas)
            if wait > 0:
                await asyncio.sleep(wait)
            if time.monotonic() >= bucket.held_until:
                return

    def hold(self, kind: str, seconds: float) -> None:
        """Azure refused a request of `kind` for `seconds`: none of this process's leaves before then, and the
        ones after go slower for a while; the task queue of the activity that sent it, for every worker."""
        self.throttled += 1
        self._buckets[kind].refused(time.monotonic(), seconds)
        if self.on_queue_throttled is not None and activity.in_activity() and not activity.info().is_local:
            self.on_queue_throttled(activity.info().task_queue)


# A wait shorter than this is not a wait worth a metric or a span (the slot was there).
WAIT_NOTED_S = 0.001


class ArmPacePolicy(AsyncHTTPPolicy):
    """Takes a token before each ARM request; on a 429 holds its kind for the Retry-After, then sends it again.
    A request that had to wait says how long and why (activities/metrics.py, a span in its operation's trace)."""

    def __init__(self, pace: ArmPace, metrics: AzureMetrics | None = None) -> None:
        super().__init__()
        self._pace = pace
        self._metrics = metrics or AzureMetrics()

    async def _take(self, kind: str) -> None:
        reason = "retry_after" if self._pace.held(kind) else "pace"
        started, started_ns = time.monotonic(), tracing.now_ns()
        await self._pace.take(kind)
        waited = time.monotonic() - started
        if waited >= WAIT_NOTED_S:
            self._metrics.waited(kind, reason, waited)
            tracing.waited(f"arm.wait {reason}", started_ns, {"azmc.arm.kind": kind, "azmc.wait.reason": reason})

    async def send(self, request: PipelineRequest) -> PipelineResponse:
        http = request.http_request
        if _GRAPH in http.url.lower():
            return await self.next.send(request)
        kind = kind_of(http.method)
        for resend in range(RESENDS + 1):
            await self._take(kind)
            response = await self.next.send(request)
            if response.http_response.status_code != 429:
                return response
            wait = retry_after_seconds(response.http_response.headers)
            self._pace.hold(kind, wait if wait is not None else 1.0)
            if resend == RESENDS or wait is None or wait > WAIT_IN_CALL_S:
                return response  # the activity fails with Retry-After as its next attempt's delay
        return response
