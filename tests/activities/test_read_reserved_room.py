"""read_reserved_room: a capacity reservation group's room per (size, zone) from one read of its instance view
(each reservation's size and zone read once per worker), cached for RESERVED_ROOM_REFRESH_SECONDS."""

import pytest
from temporalio.exceptions import ApplicationError

from activities.reading import reserved_room
from activities.reading.reserved_room import read_reserved_room
from emulator.compute.capacity_reservations import SEED_RESERVED_SIZES
from emulator.compute.compute_references import SEED_CRG
from models.reserved_room import ReservedRoomInput, room_key


def _reads(emulator, kind: str) -> int:
    return emulator.requests()["by_operation"].get(f"{kind}.get", 0)


async def test_the_seed_groups_room_is_read_once_then_cached(driver, emulator, monkeypatch) -> None:
    monkeypatch.setattr(reserved_room, "_CACHE", {})
    monkeypatch.setattr(reserved_room, "_SHAPES", {})
    room = await read_reserved_room(driver._clients, ReservedRoomInput(group_id=SEED_CRG))
    seeded = {room_key(size, ""): 10 for size in SEED_RESERVED_SIZES}
    assert room.free == room.reserved == seeded
    assert (_reads(emulator, "capacityReservationGroups"), _reads(emulator, "capacityReservations")) == (1, len(seeded))
    again = await read_reserved_room(driver._clients, ReservedRoomInput(group_id=SEED_CRG))
    assert again == room and _reads(emulator, "capacityReservationGroups") == 1  # cached: no request


async def test_a_group_of_another_subscription_is_not_read(driver, monkeypatch) -> None:
    monkeypatch.setattr(reserved_room, "_CACHE", {})
    other = SEED_CRG.replace(driver._clients.subscription_id, "11111111-1111-1111-1111-111111111111")
    with pytest.raises(ApplicationError, match="its room is not read") as refused:
        await read_reserved_room(driver._clients, ReservedRoomInput(group_id=other))
    assert refused.value.non_retryable  # the machine orders as without a group at once
