"""read_reserved_room: what a capacity reservation group has left per (size, zone), for the capacity order (spec
`capacity_reservation_group_id`, models/reserved_room.py). One read of the group with `$expand=instanceView` (each
reservation's `utilizationInfo`: `currentCapacity` reserved, `virtualMachinesAllocated`), and one read of each
reservation this worker has not seen yet for its size and zone (both fixed once it is created).

Each VM created in the group changes its room, so a group is read at most every RESERVED_ROOM_REFRESH_SECONDS per
worker, not every 12 h as prices are: a burst of machines in that window may all see the same room, and those beyond
it are created overallocated (Azure allows it, without the capacity SLA).
"""

import time

from activities import errors
from activities.arm import classified
from activities.clients import AzureClients
from models.errors import ErrorType
from models.reserved_room import RESERVED_ROOM_REFRESH_SECONDS, ReservedRoom, ReservedRoomInput, room_key

# (subscription, group id lower) -> (monotonic read time, room)
_CACHE: dict[tuple[str, str], tuple[float, ReservedRoom]] = {}
# reservation id lower -> (size, zone "" regional)
_SHAPES: dict[str, tuple[str, str]] = {}


def _parts(group_id: str) -> tuple[str, str, str]:
    """(subscription, resource group, name) of a capacity reservation group id (checked by the spec)."""
    parts = group_id.strip("/").split("/")
    return parts[1], parts[3], parts[-1]


async def read_reserved_room(clients: AzureClients, inp: ReservedRoomInput) -> ReservedRoom:
    subscription, resource_group, name = _parts(inp.group_id)
    if subscription.lower() != clients.subscription_id.lower():
        raise errors.error(ErrorType.INVALID_SPEC, f"capacity reservation group {inp.group_id} is in subscription "
                           f"{subscription}, this worker reads {clients.subscription_id}: its room is not read")
    key = (clients.subscription_id, inp.group_id.lower())
    cached = _CACHE.get(key)
    if cached is not None and time.monotonic() - cached[0] < RESERVED_ROOM_REFRESH_SECONDS:
        return cached[1]
    reserved: dict[str, int] = {}
    free: dict[str, int] = {}
    async with classified(f"read capacity reservation group {name}"):
        group = await clients.compute.capacity_reservation_groups.get(resource_group, name, expand="instanceView")
        views = group.instance_view.capacity_reservations if group.instance_view else None
        for view in views or []:
            reservation_id = f"{group.id}/capacityReservations/{view.name}".lower()
            if reservation_id not in _SHAPES:
                found = await clients.compute.capacity_reservations.get(resource_group, name, str(view.name))
                _SHAPES[reservation_id] = (str(found.sku.name), (found.zones or [""])[0])
            use = view.utilization_info
            capacity = (use.current_capacity or 0) if use else 0
            allocated = len(use.virtual_machines_allocated or []) if use else 0
            slot = room_key(*_SHAPES[reservation_id])
            reserved[slot] = reserved.get(slot, 0) + capacity
            free[slot] = free.get(slot, 0) + max(capacity - allocated, 0)
    room = ReservedRoom(reserved=reserved, free=free)
    _CACHE[key] = (time.monotonic(), room)
    return room
