"""models/reserved_room.py: the offerings a capacity reservation group has room for come first, matched by size and
zone, priorities keeping their order; a Spot offering never uses reserved capacity."""

from models.offerings import Offering
from models.reserved_room import ReservedRoom, reserved_first, room_key
from models.spec import Priority


def _o(size: str, zone: str = "", priority: Priority = Priority.REGULAR) -> Offering:
    return Offering(vm_size=size, zone=zone, priority=priority, location="westeurope")


ROOM = ReservedRoom(reserved={room_key("B", "2"): 2, room_key("A", ""): 1}, free={room_key("B", "2"): 1})


def test_the_offering_with_room_comes_first_by_size_and_zone() -> None:
    listed = [_o("A"), _o("B", "1"), _o("B", "2"), _o("C")]
    assert reserved_first(listed, ROOM) == [_o("B", "2"), _o("A"), _o("B", "1"), _o("C")]
    assert ROOM.describe(_o("B", "2")) == "reserved capacity: 1 free"
    assert ROOM.describe(_o("A")) == "reserved capacity: full, 1 reserved" and ROOM.describe(_o("C")) == ""


def test_spot_keeps_its_place_and_uses_no_reserved_capacity() -> None:
    listed = [_o("A", priority=Priority.SPOT), _o("B", "2", Priority.SPOT), _o("A"), _o("B", "2")]
    assert reserved_first(listed, ROOM) == [listed[0], listed[1], listed[3], listed[2]]
    assert ROOM.describe(listed[1]) == ""


def test_no_room_keeps_the_order() -> None:
    listed = [_o("A"), _o("B", "2")]
    assert reserved_first(listed, ReservedRoom()) == listed
