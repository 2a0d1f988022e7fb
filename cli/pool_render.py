"""Rich renderings of pools: the `azmc pool get` table and the `azmc pool describe` view.

Names and messages are data: they go into rich only as `Text`, never as markup (see cli/render.py).
"""

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cli.pools import PoolRow
from cli.render import age, phase_text
from models.pool import PoolStatus, flat_settings

ROLLOUT_STYLE = {"Stable": "bold green", "Scaling": "cyan", "Rolling": "cyan", "Paused": "yellow",
                 "Stuck": "bold red", "Deleting": "magenta", "Deleted": "dim green"}


def rollout_text(phase: str) -> Text:
    return Text(phase, style=ROLLOUT_STYLE.get(phase, ""))


def counts(status: PoolStatus) -> str:
    """desired/ready/updated/available, as `kubectl get machinedeployment` reads."""
    return f"{status.replicas}/{status.ready}/{status.updated}/{status.available}"


def revision(status: PoolStatus) -> str:
    if status.current_revision and status.current_revision != status.target_revision:
        return f"{status.current_revision} -> {status.target_revision}"
    return status.target_revision or "-"


def pools_table(rows: list[PoolRow]) -> Table:
    table = Table(box=None, header_style="bold")
    for column in ("NAME", "RESOURCE GROUP", "DESIRED/READY/UPDATED/AVAILABLE", "REVISION", "PHASE", "AGE"):
        table.add_column(column)
    for row in rows:
        if row.status is None:
            cells = [Text("-"), Text("-"), rollout_text(row.note)]
        else:
            cells = [Text(counts(row.status)), Text(revision(row.status)), rollout_text(row.status.phase)]
        table.add_row(Text(row.name), Text(row.resource_group), *cells, Text(age(row.started)))
    return table


def pool_view(status: PoolStatus, wf_id: str) -> Panel:
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column(overflow="fold")
    facts.add_row("Workflow", Text(wf_id))
    facts.add_row("Phase", rollout_text(status.phase))
    facts.add_row("Summary", Text(status.summary or "-"))
    facts.add_row("Replicas", Text(f"desired {status.replicas}, current {status.current}, ready {status.ready}, "
                                   f"updated {status.updated}, available {status.available}"))
    facts.add_row("Revision", Text(f"current {status.current_revision or '-'}, target {status.target_revision or '-'}"
                                   + (" (paused)" if status.paused else "")))
    if status.rollout_message:
        facts.add_row("Rollout", Text(status.rollout_message, style="yellow"))
    if status.replacements_held:
        facts.add_row("Replacements held", Text(status.replacements_held, style="yellow"))
    if status.settings:  # "max_replacements 1, strategy.max_surge 1, ..."
        shown = ", ".join(f"{key} {value}" for key, value in flat_settings(status.settings).items())
        facts.add_row("Settings", Text(shown))
    if status.ignored_notices:
        last = status.ignored_notices[-1]
        facts.add_row("Ignored notices", Text(f"{len(status.ignored_notices)}, the last at "
                                              f"{last.at.strftime('%H:%M:%S')}: {last.description}", style="yellow"))
    if status.left_in_azure:
        facts.add_row("Left in Azure", Text("; ".join(status.left_in_azure), style="yellow"))
    machines = Table("machine", "phase", "revision", "notes", box=None, header_style="bold")
    for machine in status.machines:
        notes = [label for flag, label in ((machine.preserved, "preserved"), (machine.deleting, "deleting"),
                                           (machine.replacement, "replacement")) if flag]
        machines.add_row(Text(machine.name), phase_text(machine.phase), Text(machine.revision),
                         Text(", ".join(notes)))
    history = Table("when", "kind", "description", box=None, header_style="bold")
    for op in status.recent_operations:
        history.add_row(Text(op.at.strftime("%H:%M:%S")), Text(op.kind), Text(op.description))
    return Panel(Group(facts, Text(""), Text(f"Machines ({len(status.machines)})", style="bold"), machines,
                       Text(""), Text("Recent operations", style="bold"), history),
                 title=Text(f"pool {status.resource_group}/{status.name}"))
