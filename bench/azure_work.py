"""The Azure work of N machine lifecycles alone: the driver activities a machine runs from create to deleted, in the
order its workflow runs them, without Temporal, in a process of its own.

bench/lifecycle.py runs it in every round beside azmc and the bare engine: the bare engine's no-op activities send no
request, so the bare engine's CPU plus this work's (this process and the emulator) is what azmc's lifecycle costs at
the least, unless it costs the engine less than the bare workflow does.

`python -m bench.azure_work --emulator URL --prefix P --machines N` prints one JSON object: the CPU seconds and wall
seconds of the N lifecycles (imports, connections and a warm-up not counted).
"""

import argparse
import asyncio
import json
import time
from typing import Any

from activities.config import AzureConfig
from activities.driver import AzureDriver
from bench.arm_requests import HEALTH, lifecycle_steps
from bench.lifecycle_runs import bench_spec
from emulator.seed import SEED_SUBSCRIPTION
from workers.worker import tune_gc

WARM_UP = 5  # lifecycles before the measured ones, as the bench's workers are warmed up
UNPACED_PER_S = 10_000.0  # the workers' ARM paces in bench/lifecycle.py (bench.stack.UNPACED)


async def one_lifecycle(driver: AzureDriver, name: str) -> None:
    """create -> Running -> delete as bench.arm_requests steps it (its health check left out), ending with nothing
    left."""
    for label, step in lifecycle_steps(driver, bench_spec(name)):
        if label != HEALTH:
            await step()


async def lifecycles(url: str, prefix: str, machines: int) -> dict[str, Any]:
    driver = await AzureDriver.open(AzureConfig(
        installation_id="bench", subscription_id=SEED_SUBSCRIPTION, endpoint=url, emulator_token="bench-token",
        arm_reads_per_s=UNPACED_PER_S, arm_writes_per_s=UNPACED_PER_S, arm_deletes_per_s=UNPACED_PER_S))
    try:
        await asyncio.gather(*(one_lifecycle(driver, f"{prefix}-warm-{i}") for i in range(WARM_UP)))
        tune_gc()
        cpu, began = time.process_time(), time.monotonic()
        await asyncio.gather(*(one_lifecycle(driver, f"{prefix}-{i:05d}") for i in range(machines)))
        return {"cpu_s": time.process_time() - cpu, "seconds": time.monotonic() - began}
    finally:
        await driver.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.azure_work", description=__doc__.split("\n")[0])
    parser.add_argument("--emulator", required=True, help="the emulator's URL")
    parser.add_argument("--prefix", required=True, help="machine names begin with it")
    parser.add_argument("--machines", type=int, default=200)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(lifecycles(args.emulator, args.prefix, args.machines))))


if __name__ == "__main__":
    main()
