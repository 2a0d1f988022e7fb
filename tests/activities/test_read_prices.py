"""read_prices: the Retail Prices API's pages followed for each size (public: no token), read at most every 12 h,
the shipped table when the API cannot be read; Spot eviction buckets from Resource Graph's SpotResources."""

from activities.reading import prices
from activities.reading.prices import read_prices
from models.prices import FALLBACK_DATE, PricesInput, price_key
from models.spec import Priority


def _retail_requests(emulator) -> int:
    return emulator.requests()["by_operation"].get("retailPrices.get", 0)


async def test_prices_are_read_page_by_page_then_cached(driver, emulator, monkeypatch) -> None:
    monkeypatch.setattr(prices, "_CACHE", {})
    emulator.settings(page_size=1)  # each size's regular and Spot item on a page of its own
    emulator._call("POST", "/_emulator/prices", {"vm_size": "Standard_D4s_v5", "location": "westeurope",
                                                 "usd_per_hour": 0.0123})
    emulator._call("POST", "/_emulator/spot-eviction-rates", {"vm_size": "Standard_D4s_v5", "location": "westeurope",
                                                              "eviction_rate": "10-15"})
    inp = PricesInput(location="westeurope", vm_sizes=["Standard_D4s_v5", "Standard_D2as_v5"],
                      priorities=[Priority.SPOT, Priority.REGULAR], eviction=True)
    read = await read_prices(driver._clients, inp)
    assert read.source == "Retail Prices API"
    assert read.usd_per_hour[price_key("Standard_D4s_v5", Priority.REGULAR)] == 0.0123
    assert read.usd_per_hour[price_key("Standard_D2as_v5", Priority.SPOT)] < read.usd_per_hour[
        price_key("Standard_D2as_v5", Priority.REGULAR)]
    assert read.eviction == {"standard_d4s_v5": "10-15", "standard_d2as_v5": "0-5"}
    assert _retail_requests(emulator) == 2 * 2  # two sizes, two pages each
    again = await read_prices(driver._clients, inp)
    assert again.usd_per_hour == read.usd_per_hour and _retail_requests(emulator) == 4  # cached: no request


async def test_an_unreachable_api_falls_back_to_the_shipped_table(driver, monkeypatch) -> None:
    monkeypatch.setattr(prices, "_CACHE", {})
    monkeypatch.setattr(driver._clients, "prices_endpoint", "http://127.0.0.1:9")  # nothing listens there
    read = await read_prices(driver._clients, PricesInput(location="westeurope", vm_sizes=["Standard_D2s_v5"],
                                                          priorities=[Priority.REGULAR]))
    assert read.usd_per_hour == {price_key("Standard_D2s_v5", Priority.REGULAR): 0.115}
    assert FALLBACK_DATE in read.source and "Standard_D2s_v5" in read.source
