"""Rich renderings several commands share: the `azmc get` table, the `azmc describe` view, a pool's view
(`azmc pool describe`, `azmc demo --pool`) and the colours of phases.

Names, messages and Azure's text are user or Azure data: they go into rich only through `shown` (a `Text`, never
a markup string, so `[/x]` or `[bold]` in them is printed as it is), with their invisible characters escaped
(models/visible_text.py: a terminal escape sequence or a right-to-left override is shown as `\x1b`, `\u202e`).
"""

import sys
from datetime import UTC, datetime

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cli.machines import AbandonedMachine, MachineRow
from models.inventory import Inventory
from models.pool import PoolStatus, flat_settings
from models.status import MachineStatus, Phase
from models.visible_text import visible

# The commands' output. Logs and CI keep whole lines: without a terminal, rich would wrap at 80 columns. No markup
# or emoji codes in plain strings: names and messages are printed as they are (rich renderables style the rest).
console = Console(highlight=False, markup=False, emoji=False, width=None if sys.stdout.isatty() else 160)

ABANDONED = "Abandoned"


def shown(value: str, style: str = "", *, lines: bool = False) -> Text:
    """User or Azure text as rich renders it: plain text, its invisible characters escaped (`lines`: a text of
    several lines keeps its newlines)."""
    return Text(visible(value, keep_newlines=lines), style=style)

PHASE_STYLE = {
    "Pending": "dim",
    "Creating": "cyan",
    "Running": "bold green",
    "Unknown": "yellow",
    "Maintenance": "cyan",
    "CrashLoopBackOff": "bold yellow",
    "Failed": "bold red",
    "Terminating": "magenta",
    "Deleted": "dim green",
    ABANDONED: "bold red",
}


def phase_text(phase: str) -> Text:
    """A phase in its colour; a closed run's "Terminated (was Running)" dim: it no longer acts."""
    return shown(phase, style=PHASE_STYLE.get(phase, "dim" if " (was " in phase else ""))


ROLLOUT_STYLE = {"Stable": "bold green", "Scaling": "cyan", "Repairing": "yellow", "Rolling": "cyan",
                 "Paused": "yellow", "Stuck": "bold red", "Deleting": "magenta", "Deleted": "dim green"}


def rollout_text(phase: str) -> Text:
    return shown(phase, style=ROLLOUT_STYLE.get(phase, ""))


def facts_table(wf_id: str) -> Table:
    """The two columns of a view's facts, the workflow id first."""
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column(overflow="fold")
    facts.add_row("Workflow", shown(wf_id))
    return facts


def age(started: datetime | None, now: datetime | None = None) -> str:
    if started is None:
        return "-"
    seconds = int(((now or datetime.now(UTC)) - started).total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{max(seconds, 0)}s"


def in_azure(inventory: Inventory) -> str:
    """What exists in Azure, on one line: "VM vm1, NIC vm1-nic, disks vm1-os-disk"."""
    parts = [f"VM {inventory.node_name}"] if inventory.has_vm else []
    if inventory.nic_names:
        parts.append(f"NIC {', '.join(inventory.nic_names)}")
    if inventory.disk_names:
        parts.append(f"disks {', '.join(inventory.disk_names)}")
    return ", ".join(parts) or "nothing"


def machines_table(rows: list[MachineRow], show_status: bool = False,
                   abandoned: list[AbandonedMachine] | None = None) -> Table:  # fmt: skip
    """Machines with a workflow, then (when there are any) abandoned ones with what of them is in Azure."""
    abandoned = abandoned or []
    table = Table(box=None, header_style="bold")
    for column in ("NAME", "RESOURCE GROUP", "PHASE", "POOL", "AGE"):
        table.add_column(column)
    if show_status:
        table.add_column("WORKFLOW")
    if abandoned:
        table.add_column("IN AZURE", overflow="fold")
    for row in rows:
        cells = [shown(row.name), shown(row.resource_group), phase_text(row.phase), shown(row.pool or "-"),
                 shown(age(row.started))]  # fmt: skip
        if show_status:
            cells.append(shown(row.status))
        if abandoned:
            cells.append(Text(""))
        table.add_row(*cells)
    for machine in abandoned:
        cells = [shown(machine.name), shown(machine.resource_group), phase_text(ABANDONED),
                 shown(machine.pool or "-"), Text("-")]  # fmt: skip
        if show_status:
            cells.append(Text("not open"))
        table.add_row(*cells, shown(in_azure(machine.inventory)))
    return table


def inventory_lines(inventory: Inventory) -> str:
    not_ours = f"\nnot ours, left alone: {', '.join(inventory.not_ours)}" if inventory.not_ours else ""
    if inventory.is_empty:
        return "nothing of it exists in Azure" + not_ours if not_ours else "nothing exists in Azure"
    vm = (
        f"VM {inventory.node_name} ({inventory.vm_state.provisioning_state}, "
        f"{inventory.vm_state.power_state or 'power state unknown'})\n  {inventory.provider_id}"
        if inventory.has_vm
        else "no VM"
    )
    nics = ", ".join(inventory.nic_names) or "none"
    data = "".join(f"\n  data disk {d.describe()}" for d in inventory.data_disks)
    return f"{vm}\nNICs:  {nics}\ndisks: {', '.join(inventory.disk_names) or 'none'}{data}{not_ours}"


def describe_view(status: MachineStatus, wf_id: str) -> Panel:
    facts = facts_table(wf_id)
    facts.add_row("Phase", phase_text(status.phase))
    facts.add_row("Pool", shown(status.pool or "-"))
    facts.add_row("Attempts", shown(str(status.attempts)))
    if status.last_operation:
        op = status.last_operation
        facts.add_row("Last operation", shown(f"{op.stage} {op.state}: {op.description}"))
    if status.last_error:
        facts.add_row("Last error", shown(status.last_error, style="yellow"))
    if status.next_retry_at:
        facts.add_row("Next retry", shown(status.next_retry_at.isoformat(timespec="seconds")))
    for step in status.stalled:  # every step waiting to retry, with why and when
        when = step.next_retry_at.isoformat(timespec="seconds") if step.next_retry_at else "-"
        facts.add_row("Waiting to retry", shown(f"{step.stage}: {step.description} (failure {step.failures}, next "
                                               f"{when}): {step.error}", style="yellow"))
    heading = status.health_heading()
    if heading and status.health:  # signals read before the VM went missing or unreadable: never shown as current
        facts.add_row("Health", shown(heading, style="yellow"))
    for signal in status.health:  # why a machine is Unhealthy, or that it is not
        style = "dim" if heading else "" if signal.healthy else "yellow"
        facts.add_row("Health", shown(signal.describe(), style=style))
    if status.repair is not None:
        facts.add_row("Repair", shown(status.repair.describe(), style="yellow"))
    if status.maintenance is not None:  # what Azure announced, and what the machine does about it (foresight)
        facts.add_row("Maintenance", shown(status.maintenance.describe(),
                                           style="" if status.maintenance.done else "yellow"))
    for refused in status.refused:  # messages not acted on: their payload did not decode
        facts.add_row("Refused", shown(refused.describe(), style="yellow"))
    if status.waiting_for_quota:
        facts.add_row("Waiting for quota", shown(status.waiting_for_quota, style="yellow"))
    if status.offering is not None:
        facts.add_row("Offering", shown(status.offering.describe()))
    now = datetime.now(UTC)
    for tried in status.offering_attempts[-1:]:  # what the latest attempt skipped, and why
        for skipped in tried.skipped:
            facts.add_row(f"Skipped (attempt {tried.attempt})", shown(skipped.describe(now), style="yellow"))
    # What Azure said when: a read, or a deletion it confirmed since (a deleted disk is not listed after).
    told = f"as Azure told it at {status.inventory_at:%H:%M:%S} UTC ({age(status.inventory_at, now)} ago)\n" \
        if status.inventory_at else ""
    facts.add_row("Inventory", shown(told + inventory_lines(status.inventory), lines=True))
    history = Table("when", "stage", "state", "description", box=None, header_style="bold")
    for op in status.recent_operations:
        history.add_row(shown(op.updated_at.strftime("%H:%M:%S")), shown(str(op.stage)), shown(str(op.state)),
                        shown(op.description))  # fmt: skip
    return Panel(Group(facts, Text(""), Text("Recent operations", style="bold"), history),
                 title=shown(f"{status.resource_group}/{status.name}"))  # fmt: skip


def pool_view(status: PoolStatus, wf_id: str, note: str = "") -> Panel:
    """`note`: how the view was answered when not by the pool itself (cli/pool/headline.py)."""
    facts = facts_table(wf_id)
    if note:
        facts.add_row("Answered by", Text(f"the server: {note}", style="yellow"))
    facts.add_row("Phase", rollout_text(status.phase))
    facts.add_row("Summary", shown(status.summary or "-"))
    facts.add_row("Replicas", shown(f"desired {status.replicas}, current {status.current}, ready {status.ready}, "
                                   f"updated {status.updated}, available {status.available}"))
    facts.add_row("Revision", shown(f"current {status.current_revision or '-'}, target {status.target_revision or '-'}"
                                   + (" (paused)" if status.paused else "")))
    if status.rollout_message:
        facts.add_row("Rollout", shown(status.rollout_message, style="yellow"))
    if status.replacements_held:
        facts.add_row("Replacements held", shown(status.replacements_held, style="yellow"))
    if status.repairs_held:
        facts.add_row("Repairs held", shown(status.repairs_held, style="yellow"))
    if status.quota_held:
        facts.add_row("Quota", shown(status.quota_held, style="yellow"))
    if status.settings:  # "max_replacements 1, strategy.max_surge 1, ..."
        settings = ", ".join(f"{key} {value}" for key, value in flat_settings(status.settings).items())
        facts.add_row("Settings", shown(settings))
    if status.ignored_notices:
        last = status.ignored_notices[-1]
        facts.add_row("Ignored notices", shown(f"{len(status.ignored_notices)}, the last at "
                                              f"{last.at.strftime('%H:%M:%S')}: {last.description}", style="yellow"))
    if status.left_in_azure:
        facts.add_row("Left in Azure", shown("; ".join(status.left_in_azure), style="yellow"))
    machines = Table("machine", "phase", "revision", "notes", box=None, header_style="bold")
    for machine in status.machines:
        notes = [label for flag, label in ((machine.preserved, "preserved"), (machine.deleting, "deleting"),
                                           (machine.replacement, "replacement")) if flag]
        if machine.waiting_for_quota and machine.phase == Phase.PENDING:
            notes.append(f"waiting for quota: {machine.waiting_for_quota}")
        machines.add_row(shown(machine.name), phase_text(machine.phase), shown(machine.revision),
                         shown(", ".join(notes)))
    history = Table("when", "kind", "description", box=None, header_style="bold")
    for op in status.recent_operations:
        history.add_row(shown(op.at.strftime("%H:%M:%S")), shown(op.kind), shown(op.description))
    return Panel(Group(facts, Text(""), shown(f"Machines ({len(status.machines)})", style="bold"), machines,
                       Text(""), Text("Recent operations", style="bold"), history),
                 title=shown(f"pool {status.resource_group}/{status.name}"))
