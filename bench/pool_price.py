"""The hourly price of a pool whose template allows several sizes, ordered by `price` against `listed`.

Run: `.venv/bin/python -m bench.pool_price [--replicas 100]`. The emulator alone (its Retail Prices API and
SpotResources: approximate list prices, not Azure's of today). The prices are read with azmc's own activity code
(`read_prices`: the API's pages, as a worker reads them), the offerings ordered with the workflow's own
`order_offerings`, and each machine priced at the first offering it would try: this assumes Azure has room for all of
them there (a refused offering would move some to the next, as the memory of refusals does), so it measures the
ordering, not allocation. Writes bench/results/pool_price.json. Printed and recorded, never asserted.
"""

import argparse
import asyncio
import tempfile
from pathlib import Path
from typing import Any

from activities.clients import build_clients
from activities.config import AzureConfig
from activities.reading.prices import read_prices
from bench.results_file import row, write_results
from bench.stack import start_emulator
from emulator.seed import SEED_LOCATION, SEED_SUBSCRIPTION
from models.offerings import Offering
from models.prices import PricesInput, order_offerings
from models.spec import CapacityOrder, Priority

# A template that accepts any of these 4-vCPU sizes, written in the order an operator might (the familiar first).
SIZES = ["Standard_D4s_v5", "Standard_D4ds_v5", "Standard_E4s_v5", "Standard_D4as_v5"]


async def measure(replicas: int, logs: Path) -> dict[str, Any]:
    emulator, url = start_emulator(logs, ("--time-scale", "0"))
    try:
        config = AzureConfig(subscription_id=SEED_SUBSCRIPTION, endpoint=url, emulator_token="bench")
        clients = build_clients(config)
        found: dict[str, Any] = {}
        try:
            for priority, orders in ((Priority.REGULAR, (CapacityOrder.LISTED, CapacityOrder.PRICE)),
                                     (Priority.SPOT, (CapacityOrder.LISTED, CapacityOrder.PRICE,
                                                      CapacityOrder.PRICE_AND_EVICTION))):
                prices = await read_prices(clients, PricesInput(location=SEED_LOCATION, vm_sizes=SIZES,
                                                                priorities=[priority], eviction=True))
                offerings = [Offering(vm_size=s, priority=priority, location=SEED_LOCATION) for s in SIZES]
                for order in orders:
                    first = order_offerings(offerings, prices, order)[0]
                    price = prices.price(first)
                    assert price is not None
                    found[f"{priority}/{order}"] = (first.vm_size, round(price * replicas, 3), prices.source)
        finally:
            await clients.close()
        return found
    finally:
        emulator.stop()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.pool_price", description=__doc__.splitlines()[0])
    parser.add_argument("--replicas", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="azmc-bench-price-") as logs:
        found = asyncio.run(measure(args.replicas, Path(logs)))
    rows = []
    for priority in ("Regular", "Spot"):
        listed_size, listed, source = found[f"{priority}/listed"]
        for order in ("price", "price_and_eviction"):
            if f"{priority}/{order}" not in found:
                continue
            size, hourly, _ = found[f"{priority}/{order}"]
            note = (f"{args.replicas} machines, sizes {', '.join(SIZES)}; {order}: {size}, listed: {listed_size} "
                    f"(${listed:.2f}/h); ratio {hourly / listed:.3f}; prices: {source} (the emulator's)")
            rows.append(row(f"hourly price of a {args.replicas}-machine {priority} pool by {order}", hourly, "USD/h",
                            None, None, note))
            print(f"{priority:>7} {order:>18}: {size:>17} ${hourly:8.2f}/h  listed {listed_size} ${listed:.2f}/h "
                  f"({hourly / listed:.3f}x)")
    print(f"  written: {write_results('pool_price', rows)}")


if __name__ == "__main__":
    main()
