"""A machine's operations, read from its phases (docs/observability.md): a create runs from Pending or Creating
until Running or Failed, a repair from Unhealthy or Unknown until Running again (a re-creation included), a delete
from Terminating until Deleted. Each is a trace (workflows/traces.py); how long a create and a repair took goes to
the worker's metrics as histograms (the workflow's meter: nothing is recorded while replaying).
"""

from datetime import datetime, timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.status import Phase

from workflows.traces import Operations

CREATE_SECONDS = "azmc_machine_create_seconds"
REPAIR_SECONDS = "azmc_machine_repair_seconds"
# Seconds: from a quick create on the emulator to a repair ladder's hour.
DURATION_BUCKETS = (5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200)

CREATING = (Phase.PENDING, Phase.CREATING, Phase.CRASH_LOOP_BACK_OFF)
ASTRAY = (Phase.UNHEALTHY, Phase.UNKNOWN)


def phase_entered(trace: Operations, phase: Phase, error: str, creating_since: datetime | None) -> None:
    """The machine is in `phase` now (or still: a run starts by telling its phase); `error`: its last error;
    `creating_since`: when its creation began, if in an earlier run."""
    kind = trace.kind
    if phase == Phase.TERMINATING:
        if kind != "delete":
            trace.end("deleted")
            trace.begin("delete")
    elif phase == Phase.DELETED:
        trace.end("deleted")
    elif phase in CREATING:
        if kind not in ("create", "repair"):  # a repair's re-creation stays the repair
            trace.begin("create", since=creating_since)
    elif phase in ASTRAY:
        if not kind:
            trace.begin("repair")
    elif phase == Phase.RUNNING:
        step = trace.noted("repair_step") or "none"
        took = trace.end("running")
        if took is not None:
            _took(kind, step, took)
    elif phase == Phase.FAILED and kind:
        trace.end("failed", error=error or "failed")


def _took(kind: str, step: str, took: timedelta) -> None:
    meter = workflow.metric_meter()
    if kind == "create":
        meter.create_histogram_float(CREATE_SECONDS, "seconds from a machine's apply (or reconcile) to Running",
                                     "s").record(took.total_seconds())
    elif kind == "repair":
        meter.create_histogram_float(REPAIR_SECONDS, "seconds from Unhealthy or Unknown to Running again, by the "
                                     "last repair step taken (none: it healed by itself)", "s") \
            .with_additional_attributes({"step": step}).record(took.total_seconds())
