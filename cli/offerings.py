"""`azmc offerings`: what the shared memory (the `Offerings` workflow of a subscription and location) skips now."""

from datetime import datetime

from rich.table import Table
from rich.text import Text
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from models.durations import humanize
from models.offerings import Refusal
from models.offerings_memory import offerings_workflow_id
from workflows.api import OFFERINGS_ENTRIES_QUERY


async def current_refusals(client: Client, subscription: str, location: str, now: datetime) -> list[Refusal]:
    """The refusals in force at `now` (the memory drops expired ones only at its next report); [] when
    nothing was ever refused there (no memory workflow)."""
    handle = client.get_workflow_handle(offerings_workflow_id(subscription, location))
    try:
        entries = await handle.query(OFFERINGS_ENTRIES_QUERY, result_type=list[Refusal])
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return []
        raise
    return sorted((r for r in entries if r.until > now), key=lambda r: r.until)


def refusals_table(refusals: list[Refusal], now: datetime) -> Table:
    table = Table("offering", "code", "refused", "retry after", "reported by", box=None, header_style="bold")
    for refusal in refusals:
        table.add_row(Text(refusal.scope()), Text(refusal.code), Text(f"{humanize(now - refusal.refused_at)} ago"),
                      Text(humanize(refusal.until - now)), Text(refusal.machine or "-"))
    return table
