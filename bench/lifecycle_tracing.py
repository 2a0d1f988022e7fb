"""`python -m bench.lifecycle --tracing`: what traces cost, on and exporting beside off, in one run on one server.

Two `azmc worker` processes on task queues of their own, one untraced, one traced and exporting over OTLP
(http/protobuf) to a collector stand-in in this process (it decodes every request and counts the spans); rounds of
N lifecycles alternate between them, so a neighbour's load hits both. Written to bench/results/lifecycle_tracing.json
(docs/performance.md), never asserted.
"""

import asyncio
import statistics
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from bench.results_file import row, write_results
from bench.stack import Processes, cpu_seconds, start_processes, start_worker
from cli.machines import apply
from cli.processes import Child, free_port
from emulator.seed import SEED_RESOURCE_GROUP
from models.naming import machine_of, workflow_id

UNTRACED, TRACED = "azmc", "azmc-traced"  # the two workers' task queues


class Collector:
    """An OTLP/HTTP traces endpoint that decodes what it gets, as a collector would, and counts the spans."""

    def __init__(self) -> None:
        self.port = free_port()
        self.spans = 0
        self.requests = 0
        self._runner: web.AppRunner | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _traces(self, request: web.Request) -> web.Response:
        message = ExportTraceServiceRequest.FromString(await request.read())
        self.requests += 1
        self.spans += sum(len(scope.spans) for resource in message.resource_spans for scope in resource.scope_spans)
        return web.Response(body=b"", content_type="application/x-protobuf")

    async def start(self) -> None:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/traces", self._traces)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


def _starter(client: Client, task_queue: str) -> Callable[[str], Coroutine[Any, Any, Any]]:
    from bench.lifecycle_runs import bench_spec

    def start(wf_id: str) -> Coroutine[Any, Any, Any]:
        machine = machine_of(wf_id)
        assert machine is not None, wf_id
        return apply(client, bench_spec(machine[1]), task_queue)

    return start


async def _round(client: Client, task_queue: str, prefix: str, n: int) -> float:
    from bench.lifecycle_runs import lifecycle_run, machine_ids
    from models.temporal_api import WORKFLOW_TYPE

    ids = machine_ids(prefix, n)
    return await lifecycle_run(client, WORKFLOW_TYPE, ids, _starter(client, task_queue),
                               workflow_id(SEED_RESOURCE_GROUP, f"{prefix}-"))


async def measure(processes: Processes, traced: Child, collector: Collector, machines: int,
                  rounds: int) -> dict[str, Any]:
    client = await Client.connect(processes.address, data_converter=pydantic_data_converter)
    workers = {UNTRACED: processes.azmc_worker, TRACED: traced}
    for queue in workers:  # imports, caches, connections
        await _round(client, queue, f"warm-{queue}", 5)
    await asyncio.sleep(6)  # the traced worker's batch of warm-up spans is sent (every 5 s)
    spans_before = collector.spans
    rates: dict[str, list[float]] = {queue: [] for queue in workers}
    cpu: dict[str, float] = dict.fromkeys(workers, 0.0)
    for round_ in range(rounds):
        for queue, worker in workers.items():
            assert worker.process is not None
            before = cpu_seconds(worker.process.pid)
            seconds = await _round(client, queue, f"r{round_}-{queue}", machines)
            if queue == TRACED:
                await asyncio.sleep(6)  # its last spans exported, counted in the round's CPU
            cpu[queue] += cpu_seconds(worker.process.pid) - before
            rates[queue].append(machines / seconds)
    return {"rates": rates, "cpu": cpu, "spans": collector.spans - spans_before, "lifecycles": machines * rounds,
            "machines": machines, "rounds": rounds}


def results_rows(m: dict[str, Any]) -> list[dict[str, Any]]:
    rates, cpu, lifecycles = m["rates"], m["cpu"], m["lifecycles"]
    paired = [t / u for u, t in zip(rates[UNTRACED], rates[TRACED], strict=True)]
    best = max(rates[TRACED]) / max(rates[UNTRACED])
    same_run = f"{m['machines']} x {m['rounds']} rounds, alternating, best round each"
    return [
        row("lifecycle rate, traced and exporting / untraced", round(best, 2), "", ">= 0.9", "untraced 1.0",
            f"{same_run}; round by round {min(paired):.2f} to {max(paired):.2f}, "
            f"median {statistics.median(paired):.2f}"),
        row("worker CPU per lifecycle, traced", round(1000 * cpu[TRACED] / lifecycles), "ms", None,
            f"untraced {1000 * cpu[UNTRACED] / lifecycles:.0f} ms", "the worker process alone, from /proc"),
        row("spans exported per lifecycle", round(m["spans"] / lifecycles, 1), "spans", None, None,
            "OTLP http/protobuf to a collector stand-in that decodes every request"),
    ]


def run(logs: Path, machines: int, rounds: int) -> None:
    collector = Collector()
    processes = start_processes(logs, bare=False)
    traced = start_worker(logs / "worker-traced.log", processes.address, processes.emulator_url,
                          {"AZMC_TASK_QUEUE": TRACED, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint})

    async def main() -> dict[str, Any]:
        await collector.start()
        try:
            return await measure(processes, traced, collector, machines, rounds)
        finally:
            await collector.stop()

    try:
        measured = asyncio.run(main())
    finally:
        traced.stop()
        processes.stop()
    rows = results_rows(measured)
    for entry in rows:
        print(f"{entry['metric']}: {entry['value']} {entry['unit']} ({entry['peer'] or ''}; {entry['note']})")
    write_results("lifecycle_tracing", rows, series={"rates": measured["rates"]})
