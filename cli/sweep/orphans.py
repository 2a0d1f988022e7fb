"""`azmc orphans`: one FleetSweep now, as the schedule runs it; a dry run unless `--delete`.

The dry run takes every step the sweep takes (graph, listing, the describe and ARM GET re-check, the
grace and the cap) and stops before any signal or delete, so it lists exactly what the next sweep would
delete and why the rest is left alone. It needs a worker on the task queue, like every azmc command.
"""

import uuid
from datetime import UTC, datetime, timedelta

from rich.table import Table
from temporalio.client import Client

from cli.render import shown
from models.durations import humanize
from models.sweep import SWEEP_WORKFLOW, SweepInput, SweepReport, orphan_mark
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


def orphans_table(report: SweepReport, now: datetime | None = None) -> Table:
    """One row per resource; a resource left alone for its grace shows what the grace counts from (a mark
    `azmc-orphan-seen` says the same time) and when a sweep may delete it."""
    now = now or datetime.now(UTC)
    table = Table("resource", "machine workflow", "what happens", "why", "orphaned since", "eligible at",
                  box=None, pad_edge=False)
    def row(*cells: str) -> None:
        table.add_row(*(shown(cell) for cell in cells))  # names and Azure's messages: text, never markup

    for line in report.deleted:
        row(*_split(line), "deleted", "orphaned longer than the grace")
    for line in report.would_delete:
        row(*_split(line), "would be deleted", "orphaned longer than the grace")
    marked = {_split(line) for line in report.marked}
    for skip in report.skipped:
        why = f"{skip.reason.value}: {skip.detail}" if skip.detail else skip.reason.value
        what = "marked, left alone" if (skip.resource, skip.workflow_id) in marked else "left alone"
        since = orphan_mark(skip.orphan_since) if skip.orphan_since else ""
        row(skip.resource, skip.workflow_id, what, why, since, _eligible(skip.eligible_at, now))
    return table


def _split(line: str) -> tuple[str, str]:
    """"NIC vm1-nic (machine/azmc-demo/vm1)" -> ("NIC vm1-nic", "machine/azmc-demo/vm1")."""
    resource, _, owner = line.removesuffix(")").rpartition(" (")
    return resource, owner


def _eligible(at: datetime | None, now: datetime) -> str:
    if at is None:
        return ""
    return f"{orphan_mark(at)} (in {humanize(at - now)})" if at > now else f"{orphan_mark(at)} (due)"


def headline(report: SweepReport, delete: bool) -> str:
    mode = "" if delete else "dry run, nothing deleted: "
    return f"{mode}{report.summary()}"
