"""The `azmc pool get` table. Names and messages are data: they go into rich only as `Text`, never as markup
(see cli/render.py)."""

from rich.table import Table
from rich.text import Text

from cli.pool.lookup import PoolRow
from cli.render import age, rollout_text, shown
from models.pool_status import PoolHeadline


def counts(status: PoolHeadline) -> str:
    """desired/ready/updated/available, as `kubectl get machinedeployment` reads."""
    return f"{status.replicas}/{status.ready}/{status.updated}/{status.available}"


def revision(status: PoolHeadline) -> str:
    if status.current_revision and status.current_revision != status.target_revision:
        return f"{status.current_revision} -> {status.target_revision}"
    return status.target_revision or "-"


def phase_text(status: PoolHeadline) -> Text:
    """The rollout phase; while Repairing, how many machines are repaired ("Repairing 2")."""
    shown = rollout_text(status.phase)
    if status.repairing:
        shown.append(f" {status.repairing}")
    return shown


def pools_table(rows: list[PoolRow]) -> Table:
    table = Table(box=None, header_style="bold")
    for column in ("NAME", "RESOURCE GROUP", "DESIRED/READY/UPDATED/AVAILABLE", "REVISION", "PHASE", "AGE"):
        table.add_column(column)
    for row in rows:
        if row.status is None:
            cells = [Text("-"), Text("-"), rollout_text(row.note)]
        else:
            cells = [Text(counts(row.status)), shown(revision(row.status)), phase_text(row.status)]
        table.add_row(shown(row.name), shown(row.resource_group), *cells, Text(age(row.started)))
    return table
