"""Spec `capacity_reservation_group_id`: the offering the group has reserved room for is tried first, whatever its
place in the list; with its reservation full the listed order stands (Azure over-allocates a full reservation, so
the first listed size is still created in the group). The group and its reservations are made through the real SDK
against the emulator; the workflow reads the group's instance view through its activity."""

from typing import Any

import pytest
from azure.mgmt.compute import models as cm

from activities.reading import reserved_room
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP
from models.status import Phase
from tests.support.sdk import sdk_clients
from tests.workflows.data_disks import vm
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

SIZES = ["Standard_D4s_v5", "Standard_D2as_v5"]  # A listed first, B second
GROUP = "crg-order"


@pytest.fixture(autouse=True)
def _fresh_room(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reserved_room, "_CACHE", {})


def _reserve(stack: Stack, capacities: dict[str, int]) -> str:
    """The group, reserving `capacities` (size -> count, regional); its id."""
    clients = sdk_clients(stack.emulator)
    try:
        group = clients.compute.capacity_reservation_groups.create_or_update(
            SEED_RESOURCE_GROUP, GROUP, cm.CapacityReservationGroup(location=SEED_LOCATION))
        for size, capacity in capacities.items():
            clients.compute.capacity_reservations.begin_create_or_update(
                SEED_RESOURCE_GROUP, GROUP, size.lower(),
                cm.CapacityReservation(location=SEED_LOCATION, sku=cm.Sku(name=size, capacity=capacity))).result()
        return str(group.id)
    finally:
        clients.close()


async def _created(stack: Stack, group_id: str) -> tuple[str, list[str]]:
    """The size the machine's VM was created with, and its operations' descriptions up to Running."""
    spec: dict[str, Any] = spec_dict(subnet_id=stack.emulator.subnet_id, pool="", data_disks=[],
                                     capacity_reservation_group_id=group_id)
    spec.pop("vm_size")
    handle = await start_machine(stack.env.client, stack.task_queue, {**spec, "vm_sizes": SIZES})
    status = await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    chosen = str(vm(stack)["vmSize"])
    await handle.signal("delete")
    await handle.result()
    return chosen, [o.description for o in status.recent_operations]


async def test_the_size_with_reserved_room_is_created_first_and_a_full_reservation_keeps_the_order(
        stack: Stack) -> None:
    group_id = _reserve(stack, {"Standard_D4s_v5": 0, "Standard_D2as_v5": 1})
    chosen, described = await _created(stack, group_id)
    assert chosen == "Standard_D2as_v5"
    assert "attempt 1: trying Standard_D2as_v5 regional (reserved capacity: 1 free)" in described

    _reserve(stack, {"Standard_D2as_v5": 0})  # every reservation full: the listed order, over-allocated by Azure
    reserved_room._CACHE.clear()
    chosen, described = await _created(stack, group_id)
    assert chosen == "Standard_D4s_v5"
    assert "attempt 1: trying Standard_D4s_v5 regional (reserved capacity: full, 0 reserved)" in described
