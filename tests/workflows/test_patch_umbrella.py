"""The umbrella patch implies only the ids it names: a run begun before a later id replays without it.

A run begun with ALL_OF_THE_ABOVE has the umbrella's marker whatever came later; had `patches.patched` let
that marker stand for an id added after it, the run's replay would take the new branch where the run took
the old one (that is how BACKOFF_ALWAYS_WAITS shipped: COVERED_BY_ALL_OF_THE_ABOVE keeps it, see patches.py).
"""

import uuid
from datetime import timedelta
from itertools import pairwise

import pytest
from temporalio import workflow
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer, Worker

from workflows import patches

pytestmark = pytest.mark.shared_server  # workers on task queues of their own, stopped at the end

LATER_ID = "a-change-after-the-umbrella"


@workflow.defn(name="PatchUmbrellaProbe", sandboxed=False)  # this module imports test helpers
class BeforeTheLaterId:
    """Code from before LATER_ID: it asks a covered id (so the run has the umbrella's marker) and no more."""

    @workflow.run
    async def run(self) -> bool:
        return patches.patched(patches.KEEP_DATA_DISKS)


@workflow.defn(name="PatchUmbrellaProbe", sandboxed=False)  # this module imports test helpers
class WithTheLaterId:
    """The same workflow once LATER_ID guards a new command (a timer)."""

    @workflow.run
    async def run(self) -> bool:
        kept = patches.patched(patches.KEEP_DATA_DISKS)
        if patches.patched(LATER_ID):
            await workflow.sleep(timedelta(seconds=1))
        return kept


async def test_a_run_begun_before_a_later_id_replays_on_code_that_has_it(workflow_env: WorkflowEnvironment) -> None:
    client, queue = workflow_env.client, f"umbrella-{uuid.uuid4()}"
    async with Worker(client, task_queue=queue, workflows=[BeforeTheLaterId]):
        handle = await client.start_workflow(BeforeTheLaterId.run, id=f"probe-{uuid.uuid4()}", task_queue=queue)
        assert await handle.result() is True
    history = await handle.fetch_history()

    markers = [e for e in history.events if e.HasField("marker_recorded_event_attributes")]
    assert len(markers) == 1, "the run has the umbrella's marker only"
    result = await Replayer(workflows=[WithTheLaterId]).replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, f"the umbrella stood for {LATER_ID}: {result.replay_failure!r}"


def test_every_id_an_umbrella_covers_is_a_patch_of_this_module_and_each_covers_the_older() -> None:
    ids = {value for name, value in vars(patches).items() if name.isupper() and isinstance(value, str)}
    umbrellas = {umbrella for umbrella, _ in patches.UMBRELLAS}
    for (_, newer), (_, older) in pairwise(patches.UMBRELLAS):
        assert older < newer
    assert all(covered <= ids - umbrellas for _, covered in patches.UMBRELLAS)
