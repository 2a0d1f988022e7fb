"""The fleet sweep's Prometheus metrics, through the Temporal SDK's meter: the worker's own `/metrics`
endpoint serves them beside the SDK's (names prefixed `azmc_sweep_`; not emitted during replay)."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
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
        if value:
            meter.create_counter(name, description).add(value)
    skipped = meter.create_counter("azmc_sweep_orphans_skipped", "orphan candidates left alone, by reason")
    for reason, count in report.skipped_by_reason().items():
        skipped.with_additional_attributes({"reason": reason}).add(count)
