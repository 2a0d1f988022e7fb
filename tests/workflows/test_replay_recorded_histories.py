"""Every history in tests/workflows/histories/, recorded from today's workflow code, replays on it.

Determinism of the code as it is: a run replays on the code it started on whenever a worker evicts it from its
cache or restarts. Runs never meet other code (every workflow type is pinned to its Worker Deployment Version,
docs/upgrades.md), so a change of workflow code re-records the histories instead of keeping old ones
(docs/architecture/upgrades.md, "Changing workflow code"): `AZMC_RECORD_HISTORIES=1 .venv/bin/pytest tests/workflows`.
They hold payloads sealed with the workflow tests' fixed key, which TEST_CONVERTER reads.
"""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.common import RawValue
from temporalio.worker import Replayer

from codec.converter import for_workers
from models.temporal_api import WORKFLOW_TYPE
from tests.workflows.helpers import TEST_CONVERTER, recorded_history
from workers.sandbox import workflow_runner
from workflows.registry import ALL_WORKFLOWS

HISTORIES = sorted((Path(__file__).parent / "histories").glob("*.json"))


def test_histories_are_recorded() -> None:
    assert len(HISTORIES) >= 5, "tests/workflows/histories/ lost its recorded histories"


@pytest.fixture(scope="module")
async def replay_failures() -> dict[Path, Exception | None]:
    """Every history replayed by one replayer, as one worker would (a replayer per history costs a worker
    each): each history's outcome."""
    async def histories() -> AsyncIterator[WorkflowHistory]:
        for path in HISTORIES:
            yield recorded_history(path)

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
class _Changed:
    """Stands for other code: the same workflow type, but it waits before reading Azure."""

    @workflow.run
    async def run(self, raw: RawValue) -> None:
        await workflow.sleep(1)


async def test_replay_catches_a_change() -> None:
    """The harness above is not vacuous: a workflow that behaves differently fails to replay."""
    path = next(p for p in HISTORIES if p.stem.startswith("seed_scenario"))
    history = recorded_history(path)
    replayer = Replayer(workflows=[_Changed], data_converter=TEST_CONVERTER)
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is not None
