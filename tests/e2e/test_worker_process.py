"""`azmc worker` as an operator runs it: two share a task queue, metrics on a port, graceful SIGTERM."""

import asyncio
import signal
import urllib.request
from pathlib import Path

from temporalio.client import Client

from cli.machines import apply, request_delete
from cli.processes import free_port
from models.naming import workflow_id
from tests.e2e.machines import owned, spec, wait_phase
from tests.e2e.stack import STACK_CONVERTER, Stack, WorkerProcess, wait_until
from workers.settings import TASK_QUEUE


def _fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as response:
        return bytes(response.read())


async def test_two_workers_share_the_work_and_stop_gracefully(stack: Stack, tmp_path: Path) -> None:
    metrics_port = free_port()
    second = WorkerProcess(stack.address, stack.emulator.url, tmp_path / "second.log")
    second.env = lambda: {**WorkerProcess.env(second), "AZMC_METRICS_PORT": str(metrics_port)}
    child = second.start()
    wait_until(lambda: "worker started" in (tmp_path / "second.log").read_text(), 30, "the second worker")

    assert b"temporal_" in await asyncio.to_thread(_fetch, f"http://127.0.0.1:{metrics_port}/metrics")

    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    specs = [spec(f"share-{index}") for index in range(6)]
    await asyncio.gather(*(apply(client, item, TASK_QUEUE) for item in specs))
    await wait_phase(client, specs, "Running", timeout_s=60)
    # Both processes ran machine work (their log lines name the machines they handled).
    first_log, second_log = stack.worker.children[0].log_path.read_text(), (tmp_path / "second.log").read_text()
    assert any(item.name in first_log for item in specs) and any(item.name in second_log for item in specs)

    child.process.send_signal(signal.SIGTERM)
    assert child.process.wait(timeout=30) == 0
    log = (tmp_path / "second.log").read_text()
    assert "msg=\"shutting down\"" in log and "msg=\"worker stopped\"" in log and "Traceback" not in log

    await asyncio.gather(*(request_delete(client, workflow_id(s.resource_group, s.name)) for s in specs))
    await wait_phase(client, specs, "Deleted", timeout_s=60)
    assert all(owned(stack.emulator.control, item.name) == [] for item in specs)
    second.stop()
