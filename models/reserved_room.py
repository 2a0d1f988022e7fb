"""Reserved capacity first (spec `capacity_reservation_group_id`, docs/capacity.md): the room a capacity reservation
group has left per (size, zone), read from its instance view by an activity, and the offerings reordered so those it
has room for come first. Pure: the workflow orders, an activity reads.

Azure lets a VM be allocated in its group beyond the reserved quantity (overallocated, without the capacity SLA), so
an offering whose reservation is full is still tried, in its place; the order only puts the reserved ones first.
"""

from pydantic import BaseModel, ConfigDict

from models.offerings import Offering
from models.spec import Priority

RESERVED_ROOM_REFRESH_SECONDS = 30  # a worker reads a group at most this often: each VM created in it changes it


def room_key(vm_size: str, zone: str) -> str:
    return f"{vm_size.lower()}|{zone}"


class ReservedRoomInput(BaseModel):
    model_config = ConfigDict(frozen=True)

    group_id: str


class ReservedRoom(BaseModel):
    """What a capacity reservation group reserves and has left, per `<size lower>|<zone>` ("" regional)."""

    model_config = ConfigDict(frozen=True)

    reserved: dict[str, int] = {}
    free: dict[str, int] = {}

    def free_for(self, offering: Offering) -> int:
        """Reserved units left for the offering: only a regular VM uses reserved capacity."""
        if offering.priority != Priority.REGULAR:
            return 0
        return self.free.get(room_key(offering.vm_size, offering.zone), 0)

    def describe(self, offering: Offering) -> str:
        """"reserved capacity: 2 free" (or "reserved capacity: full, 4 reserved"); "" when the group reserves
        nothing for the offering."""
        key = room_key(offering.vm_size, offering.zone)
        if offering.priority != Priority.REGULAR or key not in self.reserved:
            return ""
        free = self.free.get(key, 0)
        return f"reserved capacity: {free} free" if free else f"reserved capacity: full, {self.reserved[key]} reserved"


def reserved_first(offerings: list[Offering], room: ReservedRoom) -> list[Offering]:
    """`offerings` (in the order the spec's capacity_order gave) with those the group has room for first, priorities
    keeping their order (a Spot machine still tries every Spot offering first); the rest keep theirs."""
    rank = {priority: index for index, priority in enumerate(dict.fromkeys(o.priority for o in offerings))}
    return sorted(offerings, key=lambda o: (rank[o.priority], room.free_for(o) <= 0))
