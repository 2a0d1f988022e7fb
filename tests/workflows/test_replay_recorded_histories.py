"""Every recorded history in tests/workflows/histories/ replays against today's workflow code.

Histories recorded before encryption hold plain payloads, later ones payloads sealed with the workflow
tests' fixed key: TEST_CONVERTER reads both. A failure here means a change to workflow logic would break
running machines: guard the change with `workflow.patched(...)`. Re-record (after such a deliberate change) with
`AZMC_RECORD_HISTORIES=1 .venv/bin/pytest tests/workflow`.
"""

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
from workflows import ALL_WORKFLOWS
from workflows.api import POOL_WORKFLOW_TYPE, WORKFLOW_TYPE

HISTORIES = sorted((Path(__file__).parent / "histories").glob("*.json"))


def test_histories_are_recorded() -> None:
    assert len(HISTORIES) >= 5, "tests/workflows/histories/ lost its recorded histories"


@pytest.mark.parametrize("path", HISTORIES, ids=[p.stem for p in HISTORIES])
async def test_history_replays(path: Path) -> None:
    history = recorded_history(path)
    pool = history.events[0].workflow_execution_started_event_attributes.workflow_type.name == POOL_WORKFLOW_TYPE
    if pool and history.workflow_id.startswith("machine/"):
        # Recorded without its id: a pool checks its id against its spec, and tests/workflows/pools.py's pool
        # is the one recorded.
        history = WorkflowHistory(pool_workflow_id(RESOURCE_GROUP, POOL), history.events)
    replayer = Replayer(workflows=ALL_WORKFLOWS, data_converter=for_workers(TEST_CONVERTER))  # as a worker reads
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, f"{path.name}: {result.replay_failure!r}"


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
