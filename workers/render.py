"""Rich renderings of machines: the `azmc get` table, the `azmc describe` view and phase colours."""

from datetime import UTC, datetime

from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from models.inventory import Inventory
from models.status import MachineStatus
from workers.machines import MachineRow

PHASE_STYLE = {
    "Pending": "dim",
    "Creating": "cyan",
    "Running": "bold green",
    "Unknown": "yellow",
    "CrashLoopBackOff": "bold yellow",
    "Failed": "bold red",
    "Terminating": "magenta",
    "Deleted": "dim green",
}


def phase_text(phase: str) -> Text:
    return Text(phase, style=PHASE_STYLE.get(phase, ""))


def age(started: datetime | None, now: datetime | None = None) -> str:
    if started is None:
        return "-"
    seconds = int(((now or datetime.now(UTC)) - started).total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{max(seconds, 0)}s"


def machines_table(rows: list[MachineRow], show_status: bool = False) -> Table:
    table = Table(box=None, header_style="bold")
    for column in ("NAME", "RESOURCE GROUP", "PHASE", "POOL", "AGE"):
        table.add_column(column)
    if show_status:
        table.add_column("WORKFLOW")
    for row in rows:
        cells: list[str | Text] = [row.name, row.resource_group, phase_text(row.phase), row.pool or "-"]
        cells.append(age(row.started))
        if show_status:
            cells.append(row.status)
        table.add_row(*cells)
    return table


def inventory_lines(inventory: Inventory) -> str:
    if inventory.is_empty:
        return "nothing exists in Azure"
    vm = (
        f"VM {inventory.node_name} ({inventory.vm_state.provisioning_state}, "
        f"{inventory.vm_state.power_state or 'power state unknown'})\n  {inventory.provider_id}"
        if inventory.has_vm
        else "no VM"
    )
    nics = ", ".join(inventory.nic_names) or "none"
    data = "".join(f"\n  data disk {d.describe()}" for d in inventory.data_disks)
    return f"{vm}\nNICs:  {nics}\ndisks: {', '.join(inventory.disk_names) or 'none'}{data}"


def describe_view(status: MachineStatus, wf_id: str) -> Panel:
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="bold")
    facts.add_column(overflow="fold")
    facts.add_row("Workflow", wf_id)
    facts.add_row("Phase", phase_text(status.phase))
    facts.add_row("Pool", status.pool or "-")
    facts.add_row("Attempts", str(status.attempts))
    if status.last_operation:
        op = status.last_operation
        facts.add_row("Last operation", f"{op.stage} {op.state}: {op.description}")
    if status.last_error:
        facts.add_row("Last error", Text(status.last_error, style="yellow"))
    if status.next_retry_at:
        facts.add_row("Next retry", status.next_retry_at.isoformat(timespec="seconds"))
    for step in status.stalled:  # every step waiting to retry, with why and when
        when = step.next_retry_at.isoformat(timespec="seconds") if step.next_retry_at else "-"
        facts.add_row("Waiting to retry", Text(f"{step.stage}: {step.description} (failure {step.failures}, next "
                                               f"{when}): {step.error}", style="yellow"))
    facts.add_row("Inventory", inventory_lines(status.inventory))
    history = Table("when", "stage", "state", "description", box=None, header_style="bold")
    for op in status.recent_operations:
        history.add_row(op.updated_at.strftime("%H:%M:%S"), str(op.stage), str(op.state), op.description)
    return Panel(Group(facts, Text(""), Text("Recent operations", style="bold"), history),
                 title=f"{status.resource_group}/{status.name}")  # fmt: skip
