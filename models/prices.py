"""Offerings ordered by price and eviction risk (spec `capacity_order`, docs/capacity.md): the hourly price of each
size (Azure Retail Prices API, read at most every PRICES_REFRESH, else the shipped table below) and, for Spot, the
eviction-rate bucket of Resource Graph's SpotResources. Pure: the workflow orders, an activity reads.
"""

from pydantic import BaseModel, ConfigDict

from models.offerings import Offering
from models.spec import CapacityOrder, Priority

PRICES_REFRESH_HOURS = 12  # as Karpenter's Azure provider refreshes them
# Shipped fallback: USD an hour, Linux, West Europe list prices as of FALLBACK_DATE (approximate); Spot at a fifth.
FALLBACK_DATE = "2026-01-01"
FALLBACK_USD_PER_HOUR = {
    "standard_b2s": 0.0496, "standard_b2ms": 0.0992, "standard_b4ms": 0.198, "standard_d2s_v3": 0.12,
    "standard_d4s_v3": 0.24, "standard_d8s_v3": 0.48, "standard_d2s_v5": 0.115, "standard_d4s_v5": 0.23,
    "standard_d8s_v5": 0.46, "standard_d16s_v5": 0.92, "standard_d2as_v5": 0.103, "standard_d4as_v5": 0.206,
    "standard_d2ds_v5": 0.135, "standard_d4ds_v5": 0.27, "standard_e2s_v5": 0.152, "standard_e4s_v5": 0.304,
    "standard_e8s_v5": 0.608, "standard_f2s_v2": 0.0995, "standard_f4s_v2": 0.199,
}
FALLBACK_SPOT_SHARE = 0.2
# An eviction costs a re-creation: a Spot offering's price is weighed by its bucket's mid eviction rate this much.
EVICTION_WEIGHT = 4.0
BUCKET_RATES = {"0-5": 0.025, "5-10": 0.075, "10-15": 0.125, "15-20": 0.175, "20+": 0.25}


class OfferingPrices(BaseModel):
    """What the prices activity read for a location: USD an hour per `<size lower>|<priority>`, the Spot eviction
    bucket per size (lower-case), and where they came from ("Retail Prices API", or the shipped table and its date)."""

    model_config = ConfigDict(frozen=True)

    usd_per_hour: dict[str, float] = {}
    eviction: dict[str, str] = {}
    source: str = ""

    def price(self, offering: Offering) -> float | None:
        return self.usd_per_hour.get(price_key(offering.vm_size, offering.priority))

    def weighed(self, offering: Offering, order: CapacityOrder) -> float:
        """The sort key: the hourly price (unknown: last), for Spot under price_and_eviction weighed by its bucket."""
        price = self.price(offering)
        if price is None:
            return float("inf")
        if order == CapacityOrder.PRICE_AND_EVICTION and offering.priority == Priority.SPOT:
            return price * (1 + EVICTION_WEIGHT * BUCKET_RATES.get(self.eviction.get(offering.vm_size.lower(), ""), 0))
        return price


def price_key(vm_size: str, priority: str) -> str:
    return f"{vm_size.lower()}|{priority}"


def fallback_prices(sizes: list[str], priorities: list[Priority]) -> OfferingPrices:
    """The shipped table, when the Retail Prices API cannot be read."""
    found: dict[str, float] = {}
    for size in sizes:
        regular = FALLBACK_USD_PER_HOUR.get(size.lower())
        if regular is None:
            continue
        for priority in priorities:
            found[price_key(size, priority)] = round(regular * (FALLBACK_SPOT_SHARE if priority == Priority.SPOT
                                                                else 1.0), 4)
    return OfferingPrices(usd_per_hour=found, source=f"shipped table of {FALLBACK_DATE}")


def order_offerings(offerings: list[Offering], prices: OfferingPrices, order: CapacityOrder) -> list[Offering]:
    """`offerings` (in the spec's order) by price, cheapest first; priorities keep their order (a Spot machine tries
    every Spot offering before a regular one), ties and unknown prices keep the spec's order."""
    if order == CapacityOrder.LISTED:
        return list(offerings)
    rank = {priority: index for index, priority in enumerate(dict.fromkeys(o.priority for o in offerings))}
    return sorted(offerings, key=lambda o: (rank[o.priority], prices.weighed(o, order)))


class PricesInput(BaseModel):
    """What the prices activity reads: the sizes' hourly prices in `location` at `priorities`, and with `eviction`
    their Spot eviction buckets."""

    model_config = ConfigDict(frozen=True)

    location: str
    vm_sizes: list[str]
    priorities: list[Priority]
    eviction: bool = False
