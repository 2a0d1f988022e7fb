"""Long-running operations: what `Azure-AsyncOperation` and `Location` point at.

A backend starts an operation with the resources it locks, an Azure duration, the work to apply at
the end and what to do when it fails. Faults at stage "operation" fail it the way Azure does:
the initial request succeeded, the operation status later says Failed with an error object. A fault with
`late_success_s` then runs the backend's `late` work after all: the resource finishes although its operation failed.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from emulator.arm import arm_ids
from emulator.arm.clock import Clock
from emulator.arm.errors import ArmError
from emulator.arm.faults import Fault

log = logging.getLogger(__name__)

_KEEP_OPERATIONS = 10_000
# ARM's usual Retry-After on a long-running operation (Compute and Network both say 10 s): a fixed hint,
# never shrunk towards the operation's end, so clients poll at Azure's pace instead of spinning.
USUAL_RETRY_AFTER_S = 10.0
# With no duration at all (time scale 0, latency profile instant) the operation is over at once.
INSTANT_RETRY_AFTER_S = 0.01
Work = Callable[[], Awaitable[None]]
OnFailure = Callable[[ArmError], None]


@dataclass
class Operation:
    id: str
    name: str  # "<resourceType>.<verb>"
    namespace: str  # Microsoft.Compute / Microsoft.Network / Microsoft.Resources
    subscription: str
    location: str
    locks: list[str]
    expected_end: float  # monotonic wall time
    start_time: str
    retry_after_s: float = INSTANT_RETRY_AFTER_S  # wall seconds between polls this operation asks for
    faulted: bool = False  # an operation-stage fault (failure or delay) is aimed at it
    status: str = "InProgress"
    end_time: str | None = None
    error: ArmError | None = None
    task: asyncio.Task[None] | None = field(default=None, repr=False)

    def status_body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"name": self.id, "status": self.status, "startTime": self.start_time}
        if self.end_time:
            body["endTime"] = self.end_time
        if self.error is not None:
            body["error"] = self.error.error_object()
        return body

    @property
    def done(self) -> bool:
        return self.status != "InProgress"

    def path(self, kind: str = "operations") -> str:
        return (
            f"/subscriptions/{self.subscription}/providers/{self.namespace}/locations/"
            f"{self.location}/{kind}/{self.id}"
        )


class OperationRegistry:
    def __init__(self, clock: Clock, failed_counts: Counter[str] | None = None) -> None:
        self._clock = clock
        # Operations that ended Failed, by "<resourceType>.<verb>" (the control API's failed counts).
        self.failed_counts: Counter[str] = Counter() if failed_counts is None else failed_counts
        self._ops: dict[str, Operation] = {}
        self._locks: dict[str, str] = {}

    def get(self, operation_id: str) -> Operation | None:
        return self._ops.get(operation_id)

    def running_on(self, resource_id: str) -> Operation | None:
        op_id = self._locks.get(arm_ids.key(resource_id))
        return self._ops.get(op_id) if op_id else None

    def start(
        self,
        *,
        name: str,
        namespace: str,
        subscription: str,
        location: str,
        locks: list[str],
        azure_seconds: float,
        work: Work,
        on_failure: OnFailure | None = None,
        fault: Fault | None = None,
        late: Work | None = None,
    ) -> Operation:
        wall = self._clock.scaled(azure_seconds) + (fault.delay_s if fault else 0.0)
        op = Operation(
            id=str(uuid.uuid4()),
            name=name,
            namespace=namespace,
            subscription=subscription,
            location=(location or "global").replace(" ", "").lower(),
            locks=[arm_ids.key(r) for r in locks],
            expected_end=self._clock.now() + wall,
            start_time=self._clock.utc_iso(),
            retry_after_s=self._retry_after(azure_seconds),
            faulted=fault is not None,
        )
        for lock in op.locks:
            self._locks[lock] = op.id
        self._forget_old()
        self._ops[op.id] = op
        op.task = asyncio.get_running_loop().create_task(
            self._run(op, azure_seconds, work, on_failure, fault, late)
        )
        return op

    async def _run(
        self,
        op: Operation,
        azure_seconds: float,
        work: Work,
        on_failure: OnFailure | None,
        fault: Fault | None,
        late: Work | None,
    ) -> None:
        failed_by_fault = False
        try:
            await self._clock.sleep_scaled(azure_seconds)
            if fault is not None and fault.delay_s > 0:
                await asyncio.sleep(fault.delay_s)
            if fault is not None and fault.fails:
                failed_by_fault = True
                raise fault.error()
            await work()
            op.status = "Succeeded"
        except ArmError as error:
            op.error = error
            op.status = "Failed"
            self.failed_counts[op.name] += 1
            if on_failure is not None:
                on_failure(error)
        except Exception as exc:  # a bug in a backend must still end the operation
            log.exception("operation %s crashed", op.name)
            op.error = ArmError(500, "InternalServerError", f"emulator error: {exc}")
            op.status = "Failed"
        finally:
            op.end_time = self._clock.utc_iso()
            for lock in op.locks:
                if self._locks.get(lock) == op.id:
                    del self._locks[lock]
        if failed_by_fault and late is not None and fault is not None and fault.late_success_s is not None:
            await self._finish_late(op, late, fault.late_success_s)

    async def _finish_late(self, op: Operation, late: Work, azure_seconds: float) -> None:
        """The resource of a failed operation finishes after all (the operation stays Failed). With no wait there
        is no await before `late` runs, so no client sees the resource Failed in between."""
        await self._clock.sleep_scaled(azure_seconds)
        try:
            await late()
        except ArmError as error:  # what the work itself refuses (say, no capacity): the resource stays Failed
            log.info("operation %s: no late success (%s)", op.name, error.code)

    def _forget_old(self) -> None:
        """Bound memory in long runs: drop the oldest finished operations (clients poll recent ones)."""
        if len(self._ops) < _KEEP_OPERATIONS:
            return
        for op_id in [i for i, o in self._ops.items() if o.done][: _KEEP_OPERATIONS // 2]:
            del self._ops[op_id]

    async def cancel_all(self) -> None:
        tasks = [op.task for op in self._ops.values() if op.task and not op.task.done()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._ops.clear()
        self._locks.clear()

    def remaining_wall(self, op: Operation) -> float:
        return max(0.0, op.expected_end - self._clock.now())

    def _retry_after(self, azure_seconds: float) -> float:
        """ARM's usual 10 s, or the whole operation when it is shorter (a 2 s NIC PUT is polled once),
        scaled; fixed for the operation's life."""
        wall = self._clock.scaled(min(USUAL_RETRY_AFTER_S, azure_seconds))
        return max(INSTANT_RETRY_AFTER_S, wall)

    def poll_hint_s(self, op: Operation | None) -> float:
        """Seconds a client should wait before polling again: the operation's fixed Retry-After."""
        return op.retry_after_s if op is not None else INSTANT_RETRY_AFTER_S
