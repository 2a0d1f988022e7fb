"""How many simple GETs per second the emulator serves (goal: 500/s on 2 cores).

Run: `.venv/bin/python -m bench.emulator_rate [--requests N] [--concurrency C]`. Starts the emulator as a
subprocess on a free loopback port, fires concurrent GETs of one NIC with aiohttp, prints the rate and
its ratio to the goal. The load generator shares the machine with the server, so the figure is a floor.
"""

from __future__ import annotations

import argparse
import asyncio
import time

import aiohttp

from bench.results_file import row, write_results
from bench.stack import emulator_alone
from emulator.seed import seed_vnet_id

GOAL_PER_S = 500.0
VNET = seed_vnet_id()
HEADERS = {"Authorization": "Bearer bench"}


async def _fire(base: str, total: int, concurrency: int) -> tuple[float, int]:
    url = f"{base}{VNET}?api-version=2024-05-01"
    remaining = total
    failures = 0

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal remaining, failures
        while remaining > 0:
            remaining -= 1
            async with session.get(url, headers=HEADERS) as response:
                await response.read()
                if response.status != 200:
                    failures += 1

    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:
        for _ in range(50):  # warm up connections and code paths
            async with session.get(url, headers=HEADERS) as response:
                await response.read()
        started = time.perf_counter()
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
        elapsed = time.perf_counter() - started
    return elapsed, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    with emulator_alone(("--time-scale", "0"), "emulator-rate") as url:
        elapsed, failures = asyncio.run(_fire(url, args.requests, args.concurrency))
    rate = args.requests / elapsed
    print(f"emulator GET rate: {rate:.0f} requests/s ({args.requests} requests, concurrency {args.concurrency}, "
          f"{elapsed:.2f} s, {failures} non-200)")
    print(f"ratio to goal ({GOAL_PER_S:.0f}/s): {rate / GOAL_PER_S:.2f}x")
    write_results("emulator_rate", [row("emulator GETs served", round(rate), "requests/s", f">= {GOAL_PER_S:.0f}/s",
                                        None, f"concurrency {args.concurrency}, {failures} non-200")])


if __name__ == "__main__":
    main()
