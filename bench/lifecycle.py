"""How much azmc adds over the Temporal engine, measured side by side in one run on one dev server.

`python -m bench.lifecycle [--machines 200] [--rounds 5] [--tracing]`:
- N machines created -> Running -> deleted (emulator at time scale 0) by an `azmc worker` process;
- N bare workflows of the same shape (as many no-op activities before and after a `delete` signal as a
  machine ran) by a worker process of bench/bare.py, on the same server;
- alternately, `--rounds` times, so a neighbour's load on a shared machine hits both; the rate of each
  is its best round. Also: CPU seconds per lifecycle of every process (from /proc), the emulator's CPU
  share (goal 5), workflow tasks and history events per lifecycle (from the histories), ARM requests;
- in each round too, the same lifecycles' Azure work alone (bench/azure_work.py: the driver's calls without
  an engine): the bare engine's CPU plus that work's is what a lifecycle would cost that added its Azure work to the
  bare engine and nothing else, the ratio azmc reaches unless it costs the engine less than the bare workflow does.
Printed and written to bench/results/lifecycle.json, never asserted: this is not a timed test.
`--tracing` measures instead what traces cost: a traced, exporting worker beside an untraced one
(bench/lifecycle_tracing.py, bench/results/lifecycle_tracing.json).
"""

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from bench.bare import TASK_QUEUE as BARE_QUEUE
from bench.bare import BareInput
from bench.histories import histories_stats
from bench.lifecycle_rows import Measured, print_summary, results_rows
from bench.lifecycle_runs import lifecycle_run, machine_ids, machine_starter
from bench.results_file import write_results
from bench.stack import ROOT, Processes, cpu_used, rss_mib, start_processes
from cli.emulator_client import EmulatorControl
from emulator.seed import SEED_RESOURCE_GROUP
from models.naming import workflow_id
from models.temporal_api import WORKFLOW_TYPE

BARE_TYPE = "BareLifecycle"
HISTORY_SAMPLE = 20  # histories read per kind for tasks/events per lifecycle


class Bench:
    def __init__(self, processes: Processes, client: Client) -> None:
        self.processes, self.client = processes, client
        self.bare_input = BareInput(create_activities=0, delete_activities=0)

    async def run_azmc(self, name_prefix: str, n: int) -> tuple[float, list[str]]:
        ids = machine_ids(name_prefix, n)
        seconds = await lifecycle_run(self.client, WORKFLOW_TYPE, ids, machine_starter(self.client),
                                      workflow_id(SEED_RESOURCE_GROUP, f"{name_prefix}-"))
        return seconds, ids

    async def run_bare(self, prefix: str, n: int) -> tuple[float, list[str]]:
        ids = [f"bare/{prefix}-{i:05d}" for i in range(n)]

        async def start(wf_id: str) -> None:
            await self.client.start_workflow(BARE_TYPE, self.bare_input, id=wf_id, task_queue=BARE_QUEUE)

        return await lifecycle_run(self.client, BARE_TYPE, ids, start, f"bare/{prefix}-"), ids

    async def run_azure_work(self, prefix: str, n: int) -> dict[str, float]:
        """CPU seconds of the same lifecycles' Azure work alone (bench/azure_work.py): its process, the emulator."""
        argv = [sys.executable, "-m", "bench.azure_work", "--emulator", self.processes.emulator_url,
                "--prefix", prefix, "--machines", str(n)]
        before = self.processes.cpu()["emulator"]
        done = await asyncio.to_thread(subprocess.run, argv, capture_output=True, text=True,
                                       env={"PYTHONPATH": str(ROOT)}, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"bench.azure_work failed: {done.stderr[-2000:]}")
        return {"driver": json.loads(done.stdout)["cpu_s"], "emulator": self.processes.cpu()["emulator"] - before}

    async def warm_up(self) -> None:
        """Imports, caches, connections on both workers; the bare shape copies the activities of machines
        on a warm worker (a cold one asks for offerings twice: the bare workflow would do one no-op more)."""
        await self.run_azmc("warm", 5)
        _, shape = await self.run_azmc("shape", 5)
        stats = await histories_stats(self.client, shape)
        self.bare_input = BareInput(create_activities=round(stats.per("activities_before_signal")),
                                    delete_activities=round(stats.per("activities_after_signal")))
        await self.run_bare("warm", 5)


async def measure(processes: Processes, machines: int, rounds: int) -> Measured:
    client = await Client.connect(processes.address, data_converter=pydantic_data_converter)
    emulator = EmulatorControl(processes.emulator_url)
    bench = Bench(processes, client)
    await bench.warm_up()
    measured = Measured(machines=machines, rounds=rounds, bare_input=bench.bare_input)
    azmc_ids: list[str] = []
    bare_ids: list[str] = []
    for round_ in range(rounds):
        cpu_0, requests_0 = processes.cpu(), emulator.requests()["by_operation"]
        seconds, ids = await bench.run_azmc(f"bench-r{round_}", machines)
        cpu_1, requests_1 = processes.cpu(), emulator.requests()["by_operation"]
        measured.add_run("azmc", seconds, cpu_used(cpu_0, cpu_1))
        measured.add_requests({op: n - requests_0.get(op, 0) for op, n in requests_1.items()})
        azmc_ids += ids
        seconds, ids = await bench.run_bare(f"r{round_}", machines)
        measured.add_run("bare", seconds, cpu_used(cpu_1, processes.cpu()))
        bare_ids += ids
        measured.add_azure_work(await bench.run_azure_work(f"aw-r{round_}", machines))
    measured.azmc_history = await histories_stats(client, azmc_ids[:HISTORY_SAMPLE])
    measured.bare_history = await histories_stats(client, bare_ids[:HISTORY_SAMPLE])
    measured.worker_peak_rss_mib = rss_mib(processes.worker_pid())[1]
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.lifecycle", description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=200, help="lifecycles per kind and round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tracing", action="store_true", help="traced and exporting beside untraced, not bare")
    args = parser.parse_args()
    if args.tracing:
        from bench.lifecycle_tracing import run

        with tempfile.TemporaryDirectory(prefix="azmc-bench-") as tmp:
            run(Path(tmp), args.machines, args.rounds)
        return
    with tempfile.TemporaryDirectory(prefix="azmc-bench-") as tmp:
        processes = start_processes(Path(tmp))
        try:
            measured = asyncio.run(measure(processes, args.machines, args.rounds))
        finally:
            processes.stop()
    print_summary(measured)
    write_results("lifecycle", results_rows(measured), series={"rounds": measured.round_rates()})


if __name__ == "__main__":
    main()
