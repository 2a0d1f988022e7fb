"""The fleet sweep's Prometheus metrics, through the Temporal SDK's meter: the worker's own `/metrics`
endpoint serves them beside the SDK's (names prefixed `azmc_sweep_`, and the machines by phase `azmc_machines`:
from the sweep's one listing, never a query per machine; not emitted during replay). Every counter is added to
even when zero, so each is exported from the first sweep on."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.status import Phase
    from models.sweep import SweepReport


def record_metrics(report: SweepReport) -> None:
    meter = workflow.metric_meter()
    meter.create_counter("azmc_sweep_runs", "fleet sweeps completed").add(1)
    meter.create_gauge("azmc_sweep_machines_seen", "machines the last sweep saw").set(report.machines_seen)
    counters = {
        "azmc_sweep_drifted": ("machines found drifted (sent reconcile)", report.drifted),
        "azmc_sweep_orphans_found": ("orphaned resources found", report.orphans_found),
        "azmc_sweep_orphans_deleted": ("orphaned resources deleted", len(report.deleted)),
        "azmc_sweep_arm_requests": ("ARM requests the sweeps sent", report.arm_requests),
        "azmc_sweep_graph_pages": ("Resource Graph pages read", report.graph_pages),
        "azmc_sweep_visibility_pages": ("visibility pages read", report.visibility_pages),
    }
    for name, (description, value) in counters.items():
        meter.create_counter(name, description).add(value)
    # Every worker keeps the gauges of the last sweep it ran: the dashboard reads the worker that ran the latest.
    meter.create_gauge_float("azmc_sweep_last_run_timestamp_seconds", "when this worker's last sweep ended (Unix "
                             "seconds)", "s").set(workflow.now().timestamp())
    machines = meter.create_gauge("azmc_machines", "open machines by phase, at the last sweep")
    for phase in sorted({str(p) for p in Phase} | set(report.phases)):
        machines.with_additional_attributes({"phase": phase}).set(report.phases.get(phase, 0))
    skipped = meter.create_counter("azmc_sweep_orphans_skipped", "orphan candidates left alone, by reason")
    for reason, count in report.skipped_by_reason().items():
        skipped.with_additional_attributes({"reason": reason}).add(count)
