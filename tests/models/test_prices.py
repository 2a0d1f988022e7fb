"""Offerings ordered by price (spec `capacity_order`): cheapest first, a Spot offering weighed by its eviction bucket
under price_and_eviction, priorities kept in order, unknown prices last; the shipped table when nothing was read."""

from models.offerings import Offering
from models.prices import FALLBACK_DATE, OfferingPrices, fallback_prices, order_offerings, price_key
from models.spec import CapacityOrder, Priority

SPOT, REGULAR = Priority.SPOT, Priority.REGULAR


def offering(size: str, zone: str = "", priority: Priority = REGULAR) -> Offering:
    return Offering(vm_size=size, zone=zone, priority=priority, location="westeurope")


def test_price_puts_the_cheapest_size_first_and_keeps_the_zones_order() -> None:
    listed = [offering("Standard_D4s_v5", "1"), offering("Standard_D4s_v5", "2"),
              offering("Standard_D2as_v5", "1"), offering("Standard_D2as_v5", "2"), offering("Standard_X9", "1")]
    prices = OfferingPrices(usd_per_hour={price_key("Standard_D4s_v5", REGULAR): 0.23,
                                          price_key("Standard_D2as_v5", REGULAR): 0.10})
    ordered = order_offerings(listed, prices, CapacityOrder.PRICE)
    assert [(o.vm_size, o.zone) for o in ordered] == [
        ("Standard_D2as_v5", "1"), ("Standard_D2as_v5", "2"), ("Standard_D4s_v5", "1"), ("Standard_D4s_v5", "2"),
        ("Standard_X9", "1")]  # no price known: last
    assert order_offerings(listed, prices, CapacityOrder.LISTED) == listed


def test_price_and_eviction_weighs_a_spot_price_by_its_bucket_and_spot_stays_before_regular() -> None:
    listed = [offering("Standard_A", priority=SPOT), offering("Standard_B", priority=SPOT),
              offering("Standard_A", priority=REGULAR)]
    prices = OfferingPrices(usd_per_hour={price_key("Standard_A", SPOT): 0.020, price_key("Standard_B", SPOT): 0.024,
                                          price_key("Standard_A", REGULAR): 0.01},
                            eviction={"standard_a": "20+", "standard_b": "0-5"})
    assert [o.vm_size for o in order_offerings(listed, prices, CapacityOrder.PRICE)] == [
        "Standard_A", "Standard_B", "Standard_A"]
    by_risk = order_offerings(listed, prices, CapacityOrder.PRICE_AND_EVICTION)
    assert [(o.vm_size, o.priority) for o in by_risk] == [("Standard_B", SPOT), ("Standard_A", SPOT),
                                                          ("Standard_A", REGULAR)]


def test_the_shipped_table_prices_known_sizes_and_says_its_date() -> None:
    table = fallback_prices(["Standard_D2s_v5", "Standard_Unknown"], [REGULAR, SPOT])
    assert set(table.usd_per_hour) == {price_key("Standard_D2s_v5", REGULAR), price_key("Standard_D2s_v5", SPOT)}
    assert table.usd_per_hour[price_key("Standard_D2s_v5", SPOT)] < table.usd_per_hour[
        price_key("Standard_D2s_v5", REGULAR)]
    assert FALLBACK_DATE in table.source
