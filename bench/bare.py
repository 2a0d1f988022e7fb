"""The engine baseline for bench/lifecycle.py: a workflow as thin as Temporal allows, same shape as a machine.

It runs `create` no-op activities, marks itself Running (one search-attribute upsert, like a machine),
waits for the `delete` signal, runs `delete` no-op activities and completes. Run as a worker process:
`python -m bench.bare --address HOST:PORT`.
"""

import argparse
import asyncio
from datetime import timedelta

from pydantic import BaseModel
from temporalio import activity, workflow

with workflow.unsafe.imports_passed_through():
    from models.search_attributes import AZMC_PHASE

TASK_QUEUE = "bare"


class BareInput(BaseModel):
    create_activities: int
    delete_activities: int


@activity.defn(name="noop")
async def noop(step: int) -> int:
    return step


@workflow.defn(name="BareLifecycle")
class BareLifecycle:
    def __init__(self) -> None:
        self._delete = False

    @workflow.run
    async def run(self, inp: BareInput) -> int:
        for step in range(inp.create_activities):
            await workflow.execute_activity(noop, step, start_to_close_timeout=timedelta(minutes=1))
        workflow.upsert_search_attributes([AZMC_PHASE.value_set("Running")])
        await workflow.wait_condition(lambda: self._delete)
        for step in range(inp.delete_activities):
            await workflow.execute_activity(noop, step, start_to_close_timeout=timedelta(minutes=1))
        return inp.create_activities + inp.delete_activities

    @workflow.signal(name="delete")
    def delete(self) -> None:
        self._delete = True


async def _serve(address: str) -> None:
    import signal

    from temporalio.client import Client
    from temporalio.contrib.pydantic import pydantic_data_converter
    from temporalio.worker import Worker

    client = await Client.connect(address, data_converter=pydantic_data_converter)
    # The same concurrency and workflow runner as an azmc worker's defaults (workers/settings.py): a
    # sandboxed baseline would pay the sandbox's third of the worker's CPU that an azmc worker does not.
    from workers.sandbox import workflow_runner
    from workers.settings import Settings
    from workers.worker import concurrency

    settings = Settings()
    worker = Worker(client, task_queue=TASK_QUEUE, workflows=[BareLifecycle], activities=[noop],
                    workflow_runner=workflow_runner(settings.workflow_sandbox), **concurrency(settings))
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with worker:
        await stop.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    asyncio.run(_serve(parser.parse_args().address))
