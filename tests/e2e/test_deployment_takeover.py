"""Issue 37's first hang, through `azmc worker` processes and the `azmc` CLI on a dev server: a worker of another
Worker Deployment on the same task queue.

- It refuses to start while azmc's current version serves the task queue, naming both; the machines stay on azmc.
- Told to take over (AZMC_TAKE_OVER=true), it does; once it stops, `azmc describe` and `azmc apply` (an update)
  say at once that no worker polls the version a machine is pinned to, or the version a new machine waits for,
  instead of timing out or hanging.
- `azmc deployment status` shows who serves the task queue; `azmc deployment promote` takes it back (the new
  machine runs) and names the runs left on the other deployment's version, which a worker of it serving only its
  pinned runs (AZMC_MAKE_CURRENT=never) lets move back.
"""

import asyncio
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from temporalio.client import Client

from models.naming import workflow_id
from models.spec import MachineSpec
from models.temporal_api import UPGRADE_SIGNAL
from tests.e2e.machines import running, spec, wait_phase
from tests.e2e.stack import ROOT, STACK_CONVERTER, Stack, WorkerProcess, cli_env, wait_until
from workers.deployment import build_id, named, serving
from workers.live_workers import live_workers
from workers.settings import TASK_QUEUE

OTHER = "other"
T = TypeVar("T")


def _azmc(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=cli_env(stack.address),
                          capture_output=True, text=True, timeout=120)


def _other_worker(stack: Stack, log: Path, **settings: str) -> WorkerProcess:
    worker = WorkerProcess(stack.address, stack.emulator.url, log)
    worker.env = lambda: {**WorkerProcess.env(worker), "AZMC_DEPLOYMENT_NAME": OTHER, **settings}
    return worker


def _ask(address: str, question: Callable[[Client], Awaitable[T]]) -> T:
    async def main() -> T:
        return await question(await Client.connect(address, data_converter=STACK_CONVERTER))
    return asyncio.run(main())


def _serving(address: str) -> str:
    async def ask(client: Client) -> str:
        version = await serving(client, TASK_QUEUE)
        return named(version) if version else "unversioned"
    return _ask(address, ask)


def _pinned_to(address: str, wf_id: str) -> str:
    async def ask(client: Client) -> str:
        info = (await client.get_workflow_handle(wf_id).describe()).raw_description.workflow_execution_info
        version = info.versioning_info.deployment_version
        return f"{version.deployment_name}:{version.build_id}"
    return _ask(address, ask)


def _polled(address: str, version: str) -> bool:
    async def ask(client: Client) -> bool:
        return any(worker.version_name == version for worker in await live_workers(client, TASK_QUEUE))
    return _ask(address, ask)


def _upgrade(address: str, wf_id: str) -> None:
    async def send(client: Client) -> None:
        await client.get_workflow_handle(wf_id).signal(UPGRADE_SIGNAL)
    _ask(address, send)


def test_another_deployment_takes_no_task_queue_unasked_and_promote_takes_it_back(
        stack: Stack, tmp_path: Path) -> None:
    address = stack.address
    build = build_id()
    azmc, other = f"azmc:{build}", f"{OTHER}:{build}"
    first, second = spec("takeover-1"), spec("takeover-2")
    first_id = workflow_id(first.resource_group, first.name)
    asyncio.run(running(stack, first))
    assert _serving(address) == azmc and _pinned_to(address, first_id) == azmc

    # Another deployment's worker, as the issue ran it: refused, naming both; nothing moves.
    refused = _other_worker(stack, tmp_path / "refused.log")
    done = subprocess.run([sys.executable, "-m", "cli", "worker"], cwd=ROOT, env=refused.env(), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1, done.stderr
    assert f"task queue azmc is served by {azmc}, the current version of Worker Deployment azmc" in done.stderr
    assert f"this worker is {other}" in done.stderr and "AZMC_TAKE_OVER=true" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and _serving(address) == azmc

    # Told to, it takes the task queue; an idle machine woken by `upgrade` moves to it. Then it stops.
    taker = _other_worker(stack, tmp_path / "taker.log", AZMC_TAKE_OVER="true")
    taker.start()
    wait_until(lambda: _serving(address) == other, 30, f"{other} serving the task queue")
    _upgrade(address, first_id)
    wait_until(lambda: _pinned_to(address, first_id) == other, 30, f"{first.name} moving to {other}")
    taker.kill()
    wait_until(lambda: not _polled(address, other), 120, f"the stopped {other} worker leaving the live pollers")

    described = _azmc(stack, "describe", first.name)
    assert described.returncode == 1, described.stdout
    assert f"{first_id} is pinned to {other}, which no worker polls; start that build" in described.stderr, \
        described.stderr
    updated = _azmc(stack, "apply", "-f", str(_spec_file(tmp_path, first)))  # an update of the running machine
    assert updated.returncode == 1 and f"{first_id} is pinned to {other}, which no worker polls" in updated.stderr, \
        updated.stderr
    applied = _azmc(stack, "apply", "-f", str(_spec_file(tmp_path, second)))
    assert applied.returncode == 0, applied.stderr
    waiting = _azmc(stack, "describe", second.name)
    assert waiting.returncode == 1
    assert f"whose current version {other} no worker polls; start that build or promote another" in waiting.stderr, \
        waiting.stderr

    status = _azmc(stack, "deployment", "status")
    assert f"task queue azmc: served by {other}, of Worker Deployment {OTHER}, not azmc" in status.stdout, \
        status.stdout

    # Promote takes the task queue back: the new machine starts on azmc; the moved one is named, its version idle.
    promoted = _azmc(stack, "deployment", "promote", build, "--timeout", "1")
    assert f"task queue azmc was served by {other}" in promoted.stdout, promoted.stdout
    assert f"still pinned: {other} 1 runs (no worker polls it: start one)" in promoted.stdout, promoted.stdout
    assert _serving(address) == azmc
    asyncio.run(_wait_running(stack, second))
    status = _azmc(stack, "deployment", "status")
    assert f"{other}  of another deployment  1 open runs, 0 workers polling" in status.stdout, status.stdout

    # A worker of the other deployment that makes nothing current starts, and lets the moved machine move back.
    drainer = _other_worker(stack, tmp_path / "drainer.log", AZMC_MAKE_CURRENT="never")
    drainer.start()
    _upgrade(address, first_id)
    wait_until(lambda: _pinned_to(address, first_id) == azmc, 60, f"{first.name} moving back to {azmc}")
    drained = _azmc(stack, "deployment", "promote", build)
    assert drained.returncode == 0 and "still pinned" not in drained.stdout, drained.stdout
    assert _serving(address) == azmc
    drainer.stop()


def _spec_file(tmp_path: Path, item: MachineSpec) -> Path:
    path = tmp_path / f"{item.name}.json"
    path.write_text(item.model_dump_json())
    return path


async def _wait_running(stack: Stack, item: MachineSpec) -> None:
    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    await wait_phase(client, [item], "Running", timeout_s=90)
