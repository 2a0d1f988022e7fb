"""What Azure does to this worker, as Prometheus metrics on the worker's own endpoint (the Temporal runtime's meter,
beside the SDK's): ARM requests by provider, operation and status code; the seconds requests held for ARM's pace
or a 429's Retry-After; VM creations by size, zone and Azure's code; offerings refused by code
(docs/observability.md). Every label takes a bounded set of values: never a machine name or a request id.
"""

from __future__ import annotations

import re

from temporalio.common import MetricMeter

from models.spec import MachineSpec

# Azure's error codes are a few dozen words; anything else (or past this many distinct ones) is "Other", so a
# service that put ids in its codes could not grow the series without bound.
_CODE = re.compile(r"^[A-Za-z][A-Za-z0-9_.]{0,63}$")
MAX_CODES = 64
OTHER = "Other"
# Seconds (Prometheus' base unit): the worker's runtime is told these buckets (workers/worker.py).
WAIT_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
WAIT_SECONDS = "azmc_arm_wait_seconds"


class AzureMetrics:
    """One per worker process (activities/clients.py); a no-op meter when the worker serves no metrics."""

    def __init__(self, meter: MetricMeter | None = None) -> None:
        meter = meter or MetricMeter.noop
        self._requests = meter.create_counter(
            "azmc_arm_requests_total", "ARM requests this worker sent, by provider, operation and status code "
            "(status_code \"error\": no answer)", "requests")
        self._waits = meter.create_histogram_float(
            WAIT_SECONDS, "seconds an ARM request waited before it was sent: reason pace (this worker's share of "
            "ARM's budget) or retry_after (a 429's hold)", "s")
        self._creates = meter.create_counter(
            "azmc_vm_creates_total", "VM creations (ensure_vm attempts), by size, zone, outcome and Azure's error "
            "code", "creations")
        self._refused = meter.create_counter(
            "azmc_offerings_refused_total", "offerings Azure refused, as told to the shared memory, by Azure's code",
            "refusals")
        self._codes: set[str] = set()

    def request(self, provider: str, operation: str, status: int | None) -> None:
        self._requests.with_additional_attributes({
            "provider": provider, "operation": operation, "status_code": str(status) if status else "error",
        }).add(1)

    def waited(self, kind: str, reason: str, seconds: float) -> None:
        self._waits.with_additional_attributes({"kind": kind, "reason": reason}).record(seconds)

    def vm_create(self, spec: MachineSpec, code: str) -> None:
        """An ensure_vm attempt's outcome: `code` "" when it worked."""
        self._creates.with_additional_attributes({
            "size": spec.vm_size, "zone": spec.zone or "none", "priority": spec.priority.value.lower(),
            "outcome": "failed" if code else "succeeded", "code": self.bounded(code) if code else "",
        }).add(1)

    def refused(self, code: str) -> None:
        self._refused.with_additional_attributes({"code": self.bounded(code)}).add(1)

    def bounded(self, code: str) -> str:
        if not _CODE.fullmatch(code):
            return OTHER
        if code not in self._codes and len(self._codes) >= MAX_CODES:
            return OTHER
        self._codes.add(code)
        return code
