"""Shared pieces of the workflow tests: specs, a Temporal test server with azmc's search attributes, waits."""

import asyncio
import dataclasses
import json
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel
from rich.console import Console
from temporalio.api.enums.v1 import EventType, IndexedValueType, WorkflowTaskFailedCause
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.api.workflowservice.v1 import ListOpenWorkflowExecutionsRequest
from temporalio.client import Client, WorkflowHandle, WorkflowHistory
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment
from temporalio.worker import Worker

from cli.render import describe_view
from codec.converter import azmc_data_converter
from codec.keys import parse_keys
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, seed_subnet_id
from models.naming import workflow_id
from models.search_attributes import ALL_KEYS
from models.status import MachineStatus, Phase
from models.temporal_api import WORKFLOW_TYPE
from tests.support.driver import emulator_driver
from tests.support.emulator import EmulatorHandle
from tests.workflows.replay_check import replay_every_run, server_now
from tests.workflows.stack import Stack
from workers.sandbox import workflow_runner
from workers.worker import activity_interceptors, offerings_worker, paced, worker_client
from workflows.registry import ALL_WORKFLOWS

TEST_SERVER = ".venv/bin/temporal-test-server"
DEV_SERVER = ".venv/bin/temporal"  # `temporal server start-dev`
# Workflow tests run encrypted, as production does. A fixed test key (never a real one), so histories
# recorded with it (record_history) replay in test_replay_recorded_histories.py.
# As AZMC_CODEC_KEYS, for `azmc` run against a test's server.
TEST_CODEC_KEYS_JSON = '{"workflow-tests": "AiHvlaTRQ7Q9zuqhkAAL0JIJvMLMiw7x1NIOQpGXx5U="}'
TEST_CODEC_KEYS = parse_keys(TEST_CODEC_KEYS_JSON, "workflow tests")
TEST_CONVERTER = azmc_data_converter(TEST_CODEC_KEYS)
RESOURCE_GROUP = SEED_RESOURCE_GROUP
SUBNET_ID = seed_subnet_id()


def spec_dict(name: str = "vm1", subnet_id: str = SUBNET_ID, **overrides: Any) -> dict[str, Any]:
    """A MachineSpec as an operator would write it in JSON (one data disk, MCM default timeouts)."""
    spec: dict[str, Any] = {
        "name": name,
        "resource_group": RESOURCE_GROUP,
        "location": SEED_LOCATION,
        "vm_size": "Standard_D2s_v3",
        "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
        "subnet_id": subnet_id,
        "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAzmcTestKey azmc@test",
        "data_disks": [{"name": "data", "lun": 0, "size_gb": 8}],
        "pool": "workers",
    }
    spec.update(overrides)
    return spec


def machine_activity_env(name: str = "vm1") -> ActivityEnvironment:
    """Runs driver activities as machine `name`'s own workflow would (the owner tag names its workflow id),
    to arrange what an earlier run of that workflow left behind."""
    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, workflow_id=workflow_id(RESOURCE_GROUP, name))
    return env


async def register_search_attributes(client: Client) -> None:
    """The test server knows no custom search attributes until told, like a fresh namespace."""
    await client.operator_service.add_search_attributes(AddSearchAttributesRequest(
        namespace=client.namespace,
        search_attributes={key.name: IndexedValueType.ValueType(key.indexed_value_type.value) for key in ALL_KEYS},
    ))


@asynccontextmanager
async def time_skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    """A time-skipping test server of its own. Tests take the shared one (the `workflow_env` fixture of
    tests/conftest.py); this is for that fixture and for processes outside pytest."""
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=TEST_SERVER, data_converter=TEST_CONVERTER)
    async with env:
        await register_search_attributes(env.client)
        yield env


async def end_open_workflows(client: Client) -> None:
    """Terminate every workflow still open on this server. A shared time-skipping server skips time only
    while no task waits, and a workflow left open has its next timer's task wait for a worker that is gone:
    every later test on the server would then hang."""
    request = ListOpenWorkflowExecutionsRequest(namespace=client.namespace, maximum_page_size=1000)
    while True:
        page = await client.workflow_service.list_open_workflow_executions(request)
        for execution in page.executions:
            handle = client.get_workflow_handle(execution.execution.workflow_id, run_id=execution.execution.run_id)
            try:
                await handle.terminate(reason="the test ended")
            except RPCError as err:  # it closed meanwhile (a child whose parent closed)
                if err.status != RPCStatusCode.NOT_FOUND:
                    raise
        if not page.next_page_token:
            return
        request.next_page_token = page.next_page_token


@asynccontextmanager
async def lifecycle_worker(client: Client, activities: Sequence[Callable[..., Any]]) -> AsyncIterator[str]:
    task_queue, started = f"azmc-test-{uuid.uuid4()}", await server_now(client)
    client = worker_client(client)  # decoding as the worker process does
    # The worker's own runner (workers/sandbox.py: unsandboxed, as `azmc worker` runs by default). Determinism is
    # checked by the recorded histories' replays and tests/test_deterministic_code.py, the sandbox by
    # tests/workers/test_workflow_runner.py.
    async with Worker(client, task_queue=task_queue, workflows=ALL_WORKFLOWS, activities=list(activities),
                      interceptors=activity_interceptors(client), workflow_runner=workflow_runner()), \
            offerings_worker(client, task_queue), paced(client, task_queue, activities):
        yield task_queue
    await replay_every_run(client, task_queue, started)  # a test that passed made only runs that replay


@asynccontextmanager
async def workflow_stack(
    env: WorkflowEnvironment, emulator: EmulatorHandle, installation: str, token: str,
) -> AsyncIterator[Stack]:
    """A worker on its own task queue of `env` with the real driver acting for `installation`."""
    async with (emulator_driver(emulator, installation, token) as driver,
                lifecycle_worker(env.client, driver.activities()) as task_queue):  # fmt: skip
        yield Stack(env, task_queue, emulator, driver)


def _machine_name(spec: Any) -> str:
    """The name the workflow id is built from: a spec's own (also when sent as JSON text), else "raw"."""
    if isinstance(spec, str):
        try:
            spec = json.loads(spec)
        except ValueError:
            return "raw"
    return str(spec.get("name", "x")) if isinstance(spec, dict) else "raw"


async def start_machine(client: Client, task_queue: str, spec: Any, **kwargs: Any) -> WorkflowHandle:
    name = _machine_name(spec)
    return await client.start_workflow(
        WORKFLOW_TYPE, spec, id=workflow_id(RESOURCE_GROUP, name),
        task_queue=task_queue, result_type=MachineStatus, **kwargs)


async def status_of(handle: WorkflowHandle) -> MachineStatus:
    return await handle.query("status", result_type=MachineStatus)


Status = TypeVar("Status", bound=BaseModel)


# wait_status's steps on a dev server (dev_env, dev_stack), where time passes as it does in production.
REAL_TIME: dict[str, Any] = {"step": timedelta(milliseconds=300), "virtual_limit": timedelta(minutes=2)}
_TASK_IN_FLIGHT = (EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED)
SETTLE_LIMIT_S = 3.0  # real seconds a wait gives a workflow task to end before it skips time anyway


async def between_tasks(env: WorkflowEnvironment, workflow_id: str, limit_s: float = SETTLE_LIMIT_S) -> None:
    """Until the workflow has no workflow task in flight (real time, `limit_s` at most), so that skipping time next
    fires no timer the task is cancelling: the time-skipping server refuses such a completion and leaves the task
    started forever (sdk-java#3088; a `reconcile` sent as a health check's timer came due did it in CI)."""
    if not env.supports_time_skipping:
        return
    handle = env.client.get_workflow_handle(workflow_id)
    deadline = asyncio.get_running_loop().time() + limit_s
    while True:
        try:
            events = (await handle.fetch_history()).events
        except RPCError:
            return  # not started yet, or gone: nothing is in flight
        if not events or events[-1].event_type not in _TASK_IN_FLIGHT:
            return
        if asyncio.get_running_loop().time() > deadline:
            return
        await asyncio.sleep(0.02)


async def wait_status(
    env: WorkflowEnvironment, read: Callable[[], Awaitable[Status]], accept: Callable[[Status], bool], *,
    step: timedelta, virtual_limit: timedelta, seen: list[Status] | None = None,
    before_skip: Callable[[], Awaitable[None]] | None = None,
) -> Status:
    """Let virtual time pass in small steps until a status `read` satisfies `accept`; every status read is
    appended to `seen` (a status history to check invariants on). `before_skip` runs before each step."""
    waited, status = timedelta(0), None
    while True:
        try:
            status = await read()
        except RPCError as err:  # a worker too busy to answer this query in time: the next read asks again
            if err.status not in (RPCStatusCode.DEADLINE_EXCEEDED, RPCStatusCode.CANCELLED):  # "Timeout expired"
                raise
        else:
            if seen is not None:
                seen.append(status)
            if accept(status):
                return status
        if waited > virtual_limit:
            shown = status.model_dump_json(indent=1) if status is not None else "no answer"
            raise AssertionError(f"not reached within {virtual_limit} virtual: {shown}")
        if before_skip is not None:
            await before_skip()
        await env.sleep(step)
        waited += step


async def wait_for(
    env: WorkflowEnvironment, handle: WorkflowHandle, accept: Callable[[MachineStatus], bool],
    *, step: timedelta = timedelta(seconds=1), virtual_limit: timedelta = timedelta(hours=2),
) -> MachineStatus:
    """Let virtual time pass in small steps until the machine's status query satisfies `accept`; when it does not,
    the failure shows the end of the machine's history too."""
    try:
        return await wait_status(env, lambda: status_of(handle), accept, step=step, virtual_limit=virtual_limit,
                                 before_skip=lambda: between_tasks(env, handle.id))
    except AssertionError as failed:
        raise AssertionError(f"{failed}\n{await last_events(handle)}") from None


async def last_events(handle: WorkflowHandle, count: int = 15) -> str:
    """The end of a workflow's history, to show which task or activity a wait that failed stalled on."""
    try:
        history = await handle.fetch_history()
    except RPCError as err:
        return f"its history could not be read: {err.message}"
    lines = []
    for event in history.events[-count:]:
        name = EventType.Name(event.event_type).removeprefix("EVENT_TYPE_")
        cause = event.workflow_task_failed_event_attributes.cause if event.HasField(
            "workflow_task_failed_event_attributes") else 0
        lines.append(f"  {event.event_id} {event.event_time.ToDatetime():%H:%M:%S} {name}"
                     + (f" ({WorkflowTaskFailedCause.Name(cause)})" if cause else ""))
    return "its last events:\n" + "\n".join(lines)


def described(status: MachineStatus) -> str:
    """What `azmc describe` prints for the machine with this status."""
    console = Console(width=200, record=True)
    console.print(describe_view(status, workflow_id(status.resource_group, status.name)))
    return console.export_text()


def in_phase(*phases: Phase) -> Callable[[MachineStatus], bool]:
    return lambda status: status.phase in phases


HISTORIES = Path(__file__).resolve().parent / "histories"
RECORD_ENV = "AZMC_RECORD_HISTORIES"
HISTORY_WORKFLOW_ID = "workflowId"  # beside "events" in a recorded history


async def record_history(handle: WorkflowHandle, name: str) -> None:
    """With AZMC_RECORD_HISTORIES=1, store this run's history for test_replay_recorded_histories.py.

    Re-record after every change of workflow code (docs/architecture/upgrades.md, "Changing workflow code"):
    `AZMC_RECORD_HISTORIES=1 .venv/bin/pytest tests/workflows` (then review the diff of tests/workflows/histories/).
    """
    if os.environ.get(RECORD_ENV) != "1":
        return
    history = await handle.fetch_history()
    HISTORIES.mkdir(exist_ok=True)
    # The id too: the workflow replays under the id it ran with (a machine checks its id against its spec).
    recorded = {HISTORY_WORKFLOW_ID: history.workflow_id, **json.loads(history.to_json())}
    (HISTORIES / f"{name}.json").write_text(json.dumps(recorded, indent=2))


def recorded_history(path: Path) -> WorkflowHistory:
    """A history of tests/workflows/histories/ under the id it ran with (`machine/<file name>` for those
    recorded without their id)."""
    recorded = json.loads(path.read_text())
    return WorkflowHistory.from_json(recorded.pop(HISTORY_WORKFLOW_ID, f"machine/{path.stem}"), recorded)
