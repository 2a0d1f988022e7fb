"""`azmc orphans`: one FleetSweep now, as the schedule runs it; a dry run unless `--delete`.

The dry run takes every step the sweep takes (graph, listing, the describe and ARM GET re-check, the
grace and the cap) and stops before any signal or delete, so it lists exactly what the next sweep would
delete and why the rest is left alone. It needs a worker on the task queue, like every azmc command.
"""

import uuid
from datetime import timedelta

from rich.table import Table
from temporalio.client import Client

from models.sweep import SWEEP_WORKFLOW, SweepInput, SweepReport
from workers.settings import Settings

# The sweep's own activities bound it (a few minutes at most); this only stops the CLI from waiting forever.
WAIT_LIMIT = timedelta(minutes=15)


async def sweep_now(client: Client, settings: Settings, delete: bool) -> SweepReport:
    return await client.execute_workflow(
        SWEEP_WORKFLOW,
        SweepInput(orphan_grace=settings.orphan_grace, max_orphan_deletions=settings.max_orphan_deletions,
                   dry_run=not delete),
        id=f"azmc-orphans-{uuid.uuid4()}", task_queue=settings.task_queue, result_type=SweepReport,
        execution_timeout=WAIT_LIMIT, static_summary="azmc orphans" + (" --delete" if delete else " (dry run)"),
    )


def orphans_table(report: SweepReport) -> Table:
    table = Table("resource", "machine workflow", "what happens", "why", box=None, pad_edge=False)
    for line in report.deleted:
        resource, owner = line.rsplit(" (", 1)
        table.add_row(resource, owner.rstrip(")"), "deleted", "orphaned longer than the grace")
    for line in report.would_delete:
        resource, owner = line.rsplit(" (", 1)
        table.add_row(resource, owner.rstrip(")"), "would be deleted", "orphaned longer than the grace")
    for skip in report.skipped:
        why = f"{skip.reason.value}: {skip.detail}" if skip.detail else skip.reason.value
        table.add_row(skip.resource, "", "left alone", why)
    return table


def headline(report: SweepReport, delete: bool) -> str:
    mode = "" if delete else "dry run, nothing deleted: "
    return f"{mode}{report.summary()}"
