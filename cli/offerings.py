"""`azmc offerings`: what the shared memory (the `Offerings` workflow of a subscription and location) skips now,
and which offerings machines are trying (probes: machines needing them wait for the outcome)."""

from datetime import datetime
from typing import Any

from rich.table import Table
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from cli.render import shown
from models.durations import humanize
from models.offering_claims import Probe
from models.offerings import Offering, Refusal
from models.offerings_memory import Forgotten, offerings_workflow_id
from models.prices import OfferingPrices, PricesInput
from models.reserved_room import ReservedRoom, ReservedRoomInput
from models.spec import CapacityOrder, Priority
from models.temporal_api import OFFERINGS_ENTRIES_QUERY, OFFERINGS_FORGET_UPDATE, OFFERINGS_PROBES_QUERY


async def _query(client: Client, subscription: str, location: str, query: str, result_type: Any) -> Any:
    """The memory's answer; None when there is no memory there (nothing was ever refused or tried)."""
    handle = client.get_workflow_handle(offerings_workflow_id(subscription, location))
    try:
        return await handle.query(query, result_type=result_type)
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return None
        raise


async def current_refusals(client: Client, subscription: str, location: str, now: datetime) -> list[Refusal]:
    """The refusals in force at `now` (the memory drops expired ones only at its next report); [] when
    nothing was ever refused there (no memory workflow)."""
    entries = await _query(client, subscription, location, OFFERINGS_ENTRIES_QUERY, list[Refusal]) or []
    return sorted((r for r in entries if r.until > now), key=lambda r: r.until)


async def current_probes(client: Client, subscription: str, location: str, now: datetime) -> list[Probe]:
    """The offerings machines are trying at `now`, and who: until a probe's outcome (or its machine's release,
    or its end) other machines needing that offering wait; [] when there is no memory."""
    probes = await _query(client, subscription, location, OFFERINGS_PROBES_QUERY, list[Probe]) or []
    return sorted((p for p in probes if p.until > now), key=lambda p: p.until)


def refusals_table(refusals: list[Refusal], now: datetime) -> Table:
    table = Table("offering", "code", "refused", "retry after", "reported by", box=None, header_style="bold")
    for refusal in refusals:
        table.add_row(shown(refusal.scope()), shown(refusal.code), shown(f"{humanize(now - refusal.refused_at)} ago"),
                      shown(humanize(refusal.until - now)), shown(refusal.machine or "-"))
    return table


def probes_table(probes: list[Probe], now: datetime) -> Table:
    table = Table("being tried", "by (workflow)", "since", "ends at the latest in", box=None, header_style="bold")
    for probe in probes:
        table.add_row(shown(probe.offering.describe()), shown(probe.holder()),
                      shown(f"{humanize(now - probe.began())} ago"), shown(humanize(probe.until - now)))
    return table


async def read_offering_prices(location: str, sizes: list[str]) -> OfferingPrices:
    """The sizes' hourly prices (regular and Spot) and Spot eviction buckets, as a machine ordering by price reads
    them (activities/reading/prices.py), with the worker's Azure settings."""
    from activities.clients import build_clients
    from activities.reading.prices import read_prices
    from cli.errors import settings_or_exit
    from workers.worker import azure_config

    clients = build_clients(azure_config(settings_or_exit()))
    try:
        return await read_prices(clients, PricesInput(location=location, vm_sizes=sizes, eviction=True,
                                                      priorities=[Priority.REGULAR, Priority.SPOT]))
    finally:
        await clients.close()


def prices_table(sizes: list[str], prices: OfferingPrices, refusals: list[Refusal], probes: list[Probe],
                 location: str) -> Table:
    """Each size at each priority: its price, its Spot eviction bucket and its state in the memory (refused until,
    being tried, or free to try), cheapest first."""
    table = Table("offering", "USD/hour", "eviction", "state", box=None, header_style="bold",
                  caption=f"prices: {prices.source}")
    rows = [Offering(vm_size=size, priority=priority, location=location) for size in sizes
            for priority in (Priority.REGULAR, Priority.SPOT)]
    for row in sorted(rows, key=lambda o: prices.weighed(o, CapacityOrder.PRICE)):
        price = prices.price(row)
        eviction = prices.eviction.get(row.vm_size.lower(), "-") if row.priority == Priority.SPOT else "-"
        refused = [r for r in refusals if r.matches(row)]
        tried = [p for p in probes if p.offering.vm_size.lower() == row.vm_size.lower()
                 and p.offering.priority == row.priority]
        state = f"refused ({refused[0].code})" if refused else "being tried" if tried else "may be tried"
        table.add_row(shown(f"{row.vm_size}{' (Spot)' if row.priority == Priority.SPOT else ''}"),
                      shown(f"{price:.4f}" if price is not None else "unknown"), shown(eviction),
                      shown(state, style="yellow" if refused else ""))
    return table


async def read_group_room(group_id: str) -> ReservedRoom:
    """What a capacity reservation group reserves and has left per size and zone, as a machine ordering its offerings
    reads it (activities/reading/reserved_room.py), with the worker's Azure settings."""
    from activities.clients import build_clients
    from activities.reading.reserved_room import read_reserved_room
    from cli.errors import settings_or_exit
    from workers.worker import azure_config

    clients = build_clients(azure_config(settings_or_exit()))
    try:
        return await read_reserved_room(clients, ReservedRoomInput(group_id=group_id))
    finally:
        await clients.close()


def reserved_table(group_id: str, room: ReservedRoom) -> Table:
    """Each size and zone the group reserves: how many, and how many are free (machines try those first)."""
    table = Table("reserved offering", "reserved", "free", box=None, header_style="bold",
                  caption=f"capacity reservation group {group_id.rsplit('/', 1)[-1]}")
    for key in sorted(room.reserved):
        size, zone = key.split("|")
        free = room.free.get(key, 0)
        table.add_row(shown(f"{size} {f'in zone {zone}' if zone else 'regional'}"), shown(str(room.reserved[key])),
                      shown(str(free) if free else "0 (full: over-allocated, no SLA)", style="" if free else "yellow"))
    return table


def forgotten_line(forgotten: Forgotten, location: str) -> str:
    return f"forgot {forgotten.refusals} refusals and {forgotten.probes} probes in {location}"


async def forget_refusals(client: Client, subscription: str, location: str) -> Forgotten:
    """Capacity is back: the memory drops every refusal and every probe (machines waiting for a refusal still
    wait for their timer or a `reconcile`; those waiting for a probe try at their next question); how many
    of each were dropped, none when there is no memory."""
    handle = client.get_workflow_handle(offerings_workflow_id(subscription, location))
    try:
        # A memory on a worker from before probes were counted answers with the refusals alone.
        answer = await handle.execute_update(OFFERINGS_FORGET_UPDATE, result_type=Forgotten | int)  # type: ignore[arg-type]  # the SDK's annotation asks a class; its pydantic converter takes a union
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return Forgotten()
        raise
    return Forgotten(refusals=answer) if isinstance(answer, int) else answer
