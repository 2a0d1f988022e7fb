"""`azmc get` on a real dev server, emulator and `azmc worker`: a machine's AGE counts from when its workflow was
first started, not from its current run (a machine continues as new on a deploy, or when its history grows long)."""

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from temporalio.client import Client, WorkflowHandle
from typer.testing import CliRunner

from cli.commands import app
from emulator.seed import seed_subnet_id
from models.naming import workflow_id
from models.temporal_api import RECONCILE_SIGNAL, STATUS_QUERY, WORKFLOW_TYPE
from tests.e2e.stack import CODEC_KEYS, STACK_CONVERTER, Stack, running_stack
from tests.workflows.helpers import RESOURCE_GROUP, spec_dict
from workers.settings import TASK_QUEUE
from workflows.continuation import HISTORY_LIMIT_MEMO
from workflows.policies import MIN_HISTORY_LIMIT

GAP_S = 3  # the first run is this much older than the next one, at least


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("get-age")) as running:
        yield running


def _seconds(shown: str) -> int:
    number, unit = int(shown[:-1]), shown[-1]
    return number * {"s": 1, "m": 60, "h": 3600, "d": 86400}[unit]


async def _until(check: object, what: str, timeout_s: float = 60) -> None:
    for _ in range(int(timeout_s / 0.3)):
        if await check():
            return
        await asyncio.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


async def _continued_as_new(client: Client, handle: WorkflowHandle, first_run: str) -> bool:
    """Reconcile (a health check: a few events each) until the short history limit makes it continue as new."""
    if (await handle.describe()).run_id != first_run:
        return True
    await handle.signal(RECONCILE_SIGNAL)
    return False


async def test_a_machines_age_counts_from_its_first_run(stack: Stack) -> None:
    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    name = "aged1"
    handle = await client.start_workflow(WORKFLOW_TYPE, spec_dict(name, seed_subnet_id(), pool=""),
                                         id=workflow_id(RESOURCE_GROUP, name), task_queue=TASK_QUEUE,
                                         memo={HISTORY_LIMIT_MEMO: MIN_HISTORY_LIMIT})
    first = await handle.describe()
    assert first.start_time is not None and first.run_id is not None
    await _until(lambda: _phase(handle, "Running"), "the machine to run")
    await asyncio.sleep(GAP_S)
    await _until(lambda: _continued_as_new(client, handle, first.run_id or ""), "a continue-as-new")

    before = datetime.now(UTC)
    listed = await asyncio.to_thread(CliRunner().invoke, app, ["get", "--temporal-address", stack.address],
                                     env={"AZMC_CODEC_KEYS": CODEC_KEYS})
    after = datetime.now(UTC)
    assert listed.exit_code == 0, listed.output
    row = next(line.split() for line in listed.stdout.splitlines() if line.strip().startswith(f"{name} "))
    shown = _seconds(row[-1])
    assert int((before - first.start_time).total_seconds()) <= shown <= (after - first.start_time).total_seconds()
    await handle.signal("delete")
    await handle.result()


async def _phase(handle: WorkflowHandle, phase: str) -> bool:
    return (await handle.query(STATUS_QUERY)).get("phase") == phase

