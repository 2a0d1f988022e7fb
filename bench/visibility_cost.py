"""What a search-attribute upsert costs the Temporal server: per workflow task that has one, or per upsert.

`python -m bench.visibility_cost [--workflows 200] [--rounds 3]` runs, on one dev server and one worker in
this process, bare workflows of 10 no-op activities in three shapes, alternately (a neighbour's load hits
each): `one` upserts once (as bench/bare.py does), `tasks` upserts before each of 8 more activities (8 more
workflow tasks with an upsert), `batched` upserts 8 more times in its first task. The server's CPU per
workflow (from /proc) says whether the price is per upsert or per task with one (a visibility write): why a
run upserts only what it lacks (Machine.announce). Workflows are awaited by their results, not by visibility
counts, so the waiting costs the server nothing that grows with its store.
"""

import argparse
import asyncio
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from pydantic import BaseModel
from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from bench.lifecycle_runs import bounded
from bench.results_file import row, write_results
from bench.stack import cpu_seconds, dev_server, wait_for_server
from models.search_attributes import AZMC_PHASE

TASK_QUEUE = "visibility-cost"
ACTIVITIES = 10
EXTRA = 8


class Shape(BaseModel):
    upserts_before_activities: int = 0  # one upsert in each of that many workflow tasks
    upserts_in_first_task: int = 0


SHAPES = {"one": Shape(), "tasks": Shape(upserts_before_activities=EXTRA),
          "batched": Shape(upserts_in_first_task=EXTRA)}


@activity.defn(name="noop")
async def noop(step: int) -> int:
    return step


@workflow.defn(name="UpsertShape")
class UpsertShape:
    @workflow.run
    async def run(self, shape: Shape) -> None:
        for n in range(shape.upserts_in_first_task):
            workflow.upsert_search_attributes([AZMC_PHASE.value_set(f"first-{n}")])
        for step in range(ACTIVITIES):
            if step < shape.upserts_before_activities:
                workflow.upsert_search_attributes([AZMC_PHASE.value_set(f"step-{step}")])
            await workflow.execute_activity(noop, step, start_to_close_timeout=timedelta(minutes=1))
        workflow.upsert_search_attributes([AZMC_PHASE.value_set("Running")])  # every shape's one


async def run_shape(client: Client, name: str, shape: Shape, count: int) -> None:
    """`count` workflows of the shape, 50 started at a time (bench.lifecycle.bounded), each awaited to its end."""
    handles = []

    async def start(index: int) -> None:
        handles.append(await client.start_workflow(UpsertShape.run, shape, id=f"{name}-{index:05d}-{time.time_ns()}",
                                                   task_queue=TASK_QUEUE))

    await bounded([lambda index=index: start(index) for index in range(count)])  # type: ignore[misc]  # mypy cannot type a lambda's default argument
    await asyncio.gather(*(handle.result() for handle in handles))


async def measure(address: str, server_pid: int, workflows: int, rounds: int) -> dict[str, float]:
    """Server CPU milliseconds per workflow of each shape."""
    client = await Client.connect(address, data_converter=pydantic_data_converter)
    used = dict.fromkeys(SHAPES, 0.0)
    async with Worker(client, task_queue=TASK_QUEUE, workflows=[UpsertShape], activities=[noop],
                      workflow_runner=UnsandboxedWorkflowRunner()):
        for name, shape in SHAPES.items():
            await run_shape(client, f"warm-{name}", shape, 20)
        for round_ in range(rounds):
            for name, shape in SHAPES.items():
                before = cpu_seconds(server_pid)
                await run_shape(client, f"{name}-r{round_}", shape, workflows)
                used[name] += cpu_seconds(server_pid) - before
    return {name: seconds * 1000 / (workflows * rounds) for name, seconds in used.items()}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.visibility_cost", description=__doc__.split("\n")[0])
    parser.add_argument("--workflows", type=int, default=200, help="workflows per shape and round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="azmc-bench-") as tmp:
        server, address = dev_server(Path(tmp))
        server.start()
        try:
            wait_for_server(server, address)
            assert server.process is not None
            ms = asyncio.run(measure(address, server.process.pid, args.workflows, args.rounds))
        finally:
            server.stop()
    per_task = (ms["tasks"] - ms["one"]) / EXTRA
    per_upsert = (ms["batched"] - ms["one"]) / EXTRA
    print(f"server CPU per workflow ({args.workflows} x {args.rounds} rounds, {ACTIVITIES} no-op activities): "
          f"one upsert {ms['one']:.1f} ms, {EXTRA} more tasks with one {ms['tasks']:.1f} ms, "
          f"{EXTRA} more in the first task {ms['batched']:.1f} ms")
    print(f"  a workflow task with an upsert: {per_task:.1f} ms; one more upsert in a task that has one: "
          f"{per_upsert:.1f} ms")
    same_run = f"{args.workflows} x {args.rounds} rounds, alternating; bare workflows of {ACTIVITIES} no-op activities"
    write_results("visibility_cost", [
        row("server CPU, a workflow task with an upsert", round(per_task, 1), "ms", None,
            f"one more upsert in that task {per_upsert:.1f} ms", same_run),
        row("server CPU per bare workflow (one upsert)", round(ms["one"], 1), "ms", None, None,
            f"{EXTRA} more tasks with one: {ms['tasks']:.1f} ms; {EXTRA} more upserts in one task: "
            f"{ms['batched']:.1f} ms"),
    ])


if __name__ == "__main__":
    main()
