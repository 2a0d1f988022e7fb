"""Replays create no spans (docs/observability.md): every recorded history replayed with tracing on, as a worker
with AZMC_TRACE_FILE or OTEL_EXPORTER_OTLP_ENDPOINT replays a run it evicted, opens its operations' spans again
(the same ids, from the workflow's random) and ends none of them, so nothing reaches an exporter twice."""

from collections.abc import AsyncIterator

from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from codec.converter import for_workers
from tests.support.spans import recorded
from tests.workflows.helpers import TEST_CONVERTER, recorded_history
from tests.workflows.test_replay_recorded_histories import HISTORIES
from workers.sandbox import workflow_runner
from workflows.registry import ALL_WORKFLOWS


async def test_replaying_every_recorded_history_with_tracing_on_exports_no_span() -> None:
    from temporalio.contrib.opentelemetry import OpenTelemetryPlugin

    async def histories() -> AsyncIterator[WorkflowHistory]:
        for path in HISTORIES:
            yield recorded_history(path)

    replayer = Replayer(workflows=ALL_WORKFLOWS, data_converter=for_workers(TEST_CONVERTER),
                        workflow_runner=workflow_runner(), plugins=[OpenTelemetryPlugin()])
    with recorded() as seen:  # the process's provider, as a traced worker's, with no exporter but `seen`
        async with replayer.workflow_replay_iterator(histories()) as results:
            failures = [result.replay_failure async for result in results]
    assert failures == [None] * len(HISTORIES)
    # Tracing was on: the replays opened the machines' operations again (create, delete, repair ...)...
    assert {"machine.create", "machine.delete"} <= set(seen.started), seen.started
    # ...and ended none: an exporter sees nothing of a replay.
    assert seen.ended == []
