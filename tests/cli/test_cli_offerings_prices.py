"""`azmc offerings --sizes`: each size's hourly price (regular and Spot), Spot eviction bucket and state in the
offerings memory, cheapest first, and where the prices came from; `--reservation-group`: what a capacity reservation
group reserves and has free per size and zone."""

from datetime import UTC, datetime, timedelta

from rich.console import Console

from cli.offerings import prices_table, reserved_table
from models.offerings import Refusal
from models.prices import OfferingPrices, price_key
from models.reserved_room import ReservedRoom, room_key
from models.spec import Priority


def test_the_prices_table_shows_price_eviction_and_state_cheapest_first() -> None:
    prices = OfferingPrices(usd_per_hour={price_key("Standard_D4s_v5", Priority.REGULAR): 0.23,
                                          price_key("Standard_D4s_v5", Priority.SPOT): 0.046,
                                          price_key("Standard_D2as_v5", Priority.REGULAR): 0.103},
                            eviction={"standard_d4s_v5": "10-15"}, source="Retail Prices API")
    now = datetime.now(UTC)
    refused = Refusal(vm_size="Standard_D2as_v5", zone="*", priority="Regular", code="AllocationFailed",
                      refused_at=now, until=now + timedelta(hours=1))
    console = Console(width=200, record=True)
    console.print(prices_table(["Standard_D4s_v5", "Standard_D2as_v5"], prices, [refused], [], "westeurope"))
    lines = [line.split() for line in console.export_text().splitlines() if line.strip()]
    rows = [line for line in lines if line[0].startswith("Standard_")]
    assert rows[0] == ["Standard_D4s_v5", "(Spot)", "0.0460", "10-15", "may", "be", "tried"]
    assert rows[1] == ["Standard_D2as_v5", "0.1030", "-", "refused", "(AllocationFailed)"]
    assert rows[2][:2] == ["Standard_D4s_v5", "0.2300"]
    assert rows[3][:3] == ["Standard_D2as_v5", "(Spot)", "unknown"]
    assert ["prices:", "Retail", "Prices", "API"] in lines


def test_the_reserved_table_shows_each_reserved_offering_and_its_room() -> None:
    room = ReservedRoom(reserved={room_key("Standard_D2as_v5", "2"): 2, room_key("Standard_D4s_v5", ""): 1},
                        free={room_key("Standard_D2as_v5", "2"): 1})
    console = Console(width=200, record=True)
    console.print(reserved_table("/subscriptions/s/resourceGroups/g/providers/Microsoft.Compute/"
                                 "capacityReservationGroups/crg", room))
    lines = [line.split() for line in console.export_text().splitlines() if line.strip()]
    rows = [line for line in lines if line[0].startswith("standard_")]
    assert rows == [["standard_d2as_v5", "in", "zone", "2", "2", "1"],
                    ["standard_d4s_v5", "regional", "1", "0", "(full:", "over-allocated,", "no", "SLA)"]]
