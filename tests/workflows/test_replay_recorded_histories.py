"""Every recorded history in tests/workflows/histories/ replays against today's workflow code.

Histories recorded before encryption hold plain payloads, later ones payloads sealed with the workflow
tests' fixed key: TEST_CONVERTER reads both. A failure here means a change to workflow logic would break
running machines: guard the change with `workflow.patched(...)`. Re-record (after such a deliberate change) with
`AZMC_RECORD_HISTORIES=1 .venv/bin/pytest tests/workflow`.
"""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.common import RawValue
from temporalio.worker import Replayer

from codec.converter import for_workers
from models.naming import pool_workflow_id
from tests.workflows.helpers import RESOURCE_GROUP, TEST_CONVERTER, recorded_history
from tests.workflows.pools import POOL
from workers.sandbox import workflow_runner
from workflows import ALL_WORKFLOWS
from workflows.api import POOL_WORKFLOW_TYPE, WORKFLOW_TYPE

HISTORIES = sorted((Path(__file__).parent / "histories").glob("*.json"))


def test_histories_are_recorded() -> None:
    assert len(HISTORIES) >= 5, "tests/workflows/histories/ lost its recorded histories"


def _as_recorded(path: Path) -> WorkflowHistory:
    history = recorded_history(path)
    pool = history.events[0].workflow_execution_started_event_attributes.workflow_type.name == POOL_WORKFLOW_TYPE
    if pool and history.workflow_id.startswith("machine/"):
        # Recorded without its id: a pool checks its id against its spec, and tests/workflows/pools.py's pool
        # is the one recorded.
        history = WorkflowHistory(pool_workflow_id(RESOURCE_GROUP, POOL), history.events)
    return history


@pytest.fixture(scope="module")
async def replay_failures() -> dict[Path, Exception | None]:
    """Every history replayed by one replayer, as one worker would (a replayer per history costs a worker
    each): each history's outcome."""
    async def histories() -> AsyncIterator[WorkflowHistory]:
        for path in HISTORIES:
            yield _as_recorded(path)

    # The worker's own runner (unsandboxed unless AZMC_WORKFLOW_SANDBOX, tests/workers/test_workflow_runner.py
    # runs both): replay checks the commands, whichever runner emits them.
    replayer = Replayer(workflows=ALL_WORKFLOWS, data_converter=for_workers(TEST_CONVERTER),
                        workflow_runner=workflow_runner())
    async with replayer.workflow_replay_iterator(histories()) as results:
        failures = [result.replay_failure async for result in results]
    assert len(failures) == len(HISTORIES)
    return dict(zip(HISTORIES, failures, strict=True))


@pytest.mark.parametrize("path", HISTORIES, ids=[p.stem for p in HISTORIES])
def test_history_replays(path: Path, replay_failures: dict[Path, Exception | None]) -> None:
    assert replay_failures[path] is None, f"{path.name}: {replay_failures[path]!r}"


@workflow.defn(name=WORKFLOW_TYPE, sandboxed=False)
class _ChangedWithoutPatch:
    """Stands for a careless edit: the same workflow type, but it waits before reading Azure."""

    @workflow.run
    async def run(self, raw: RawValue) -> None:
        await workflow.sleep(1)


async def test_replay_catches_an_unpatched_change() -> None:
    """The harness above is not vacuous: a workflow that behaves differently fails to replay."""
    path = next(p for p in HISTORIES if p.stem.startswith("seed_scenario"))
    history = recorded_history(path)
    replayer = Replayer(workflows=[_ChangedWithoutPatch], data_converter=TEST_CONVERTER)
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is not None
