"""read_prices: the hourly price of sizes in a location (the Azure Retail Prices API: public, no token, its
`NextPageLink` pages followed) and their Spot eviction buckets (one Resource Graph query of SpotResources).

Prices change rarely: each (endpoint, location, size) is read at most every PRICES_REFRESH_HOURS in this process
(Karpenter's Azure provider refreshes every 12 h too). A size the API cannot be read for falls back to the last price
read, else to the shipped table of models/prices.py with its date, so ordering by price never fails a creation.
"""

import logging
import time
from typing import Any
from urllib.parse import urlencode

import aiohttp

from activities.clients import AzureClients
from activities.reading.graph import kql_string, query_all
from models.prices import (
    PRICES_REFRESH_HOURS,
    OfferingPrices,
    PricesInput,
    fallback_prices,
    price_key,
)
from models.spec import Priority

log = logging.getLogger("azmc.prices")
RETAIL_PATH = "/api/retail/prices"
MAX_PAGES = 20  # a size in a region has a few dozen items: more pages mean a filter gone wrong
EVICTION_TYPE = "microsoft.compute/skuspotevictionrate/location"
_TIMEOUT = aiohttp.ClientTimeout(total=20)
# (endpoint, location, size lower) -> (monotonic read time, {priority: USD an hour})
_CACHE: dict[tuple[str, str, str], tuple[float, dict[str, float]]] = {}


def retail_filter(location: str, vm_size: str) -> str:
    """Microsoft's filter for one size's consumption prices in a region (values are case-sensitive)."""
    return (f"serviceName eq 'Virtual Machines' and armRegionName eq '{location.lower()}' "
            f"and armSkuName eq '{vm_size}' and priceType eq 'Consumption'")


def linux_prices(items: list[dict[str, Any]]) -> dict[str, float]:
    """{"Regular": USD, "Spot": USD} from one size's items: Linux (no Windows product), hourly, neither Low Priority
    nor a reservation; the lowest when several meters remain."""
    found: dict[str, float] = {}
    for item in items:
        sku, product = str(item.get("skuName", "")), str(item.get("productName", ""))
        if "Windows" in product or "Low Priority" in sku or item.get("unitOfMeasure") != "1 Hour":
            continue
        priority = Priority.SPOT.value if sku.endswith(" Spot") else Priority.REGULAR.value
        price = item.get("retailPrice")
        if isinstance(price, int | float) and price > 0:
            found[priority] = min(found.get(priority, float(price)), float(price))
    return found


async def _read_size(session: aiohttp.ClientSession, endpoint: str, location: str, vm_size: str) -> dict[str, float]:
    url: str | None = f"{endpoint}{RETAIL_PATH}?" + urlencode({"$filter": retail_filter(location, vm_size)})
    items: list[dict[str, Any]] = []
    for _ in range(MAX_PAGES):
        if url is None:
            break
        async with session.get(url, timeout=_TIMEOUT) as answer:
            answer.raise_for_status()
            page = await answer.json()
        items += page.get("Items") or []
        url = page.get("NextPageLink")
    return linux_prices(items)


async def _eviction(clients: AzureClients, location: str, sizes: list[str]) -> dict[str, str]:
    names = ", ".join(kql_string(s.lower()) for s in sizes)
    query = (f"SpotResources | where type =~ {kql_string(EVICTION_TYPE)} | where location =~ {kql_string(location)}"
             f" | where sku.name in~ ({names})"
             " | project skuName = tostring(sku.name), evictionRate = tostring(properties.evictionRate)")
    rows = await query_all(clients, query, f"read Spot eviction rates in {location}")
    return {str(r.get("skuName", "")).lower(): str(r.get("evictionRate", "")) for r in rows}


async def read_prices(clients: AzureClients, inp: PricesInput) -> OfferingPrices:
    fallback = fallback_prices(inp.vm_sizes, inp.priorities)
    found: dict[str, float] = {}
    stale: list[str] = []
    now = time.monotonic()
    session = clients.probe_session()
    for size in inp.vm_sizes:
        key = (clients.prices_endpoint, inp.location.lower(), size.lower())
        cached = _CACHE.get(key)
        if cached is None or now - cached[0] > PRICES_REFRESH_HOURS * 3600:
            try:
                cached = (now, await _read_size(session, clients.prices_endpoint, inp.location, size))
                _CACHE[key] = cached
            except (aiohttp.ClientError, TimeoutError, ValueError) as err:
                log.warning("could not read the retail prices of %s in %s: %s", size, inp.location, err)
        for priority in inp.priorities:
            price = cached[1].get(priority.value) if cached is not None else None
            if price is None:
                price = fallback.usd_per_hour.get(price_key(size, priority))
                stale.append(size)
            if price is not None:
                found[price_key(size, priority)] = price
    eviction = await _eviction(clients, inp.location, inp.vm_sizes) if inp.eviction and inp.vm_sizes else {}
    source = "Retail Prices API" if not stale else f"Retail Prices API, {fallback.source} for " + ", ".join(
        sorted(set(stale)))
    return OfferingPrices(usd_per_hour=found, eviction=eviction, source=source)
