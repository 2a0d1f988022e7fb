"""Every run a workflow test made replays on today's code: checked when its worker stops.

A run replays whenever a worker restarts or evicts it from its cache, and a replay that disagrees with the run
fails every later workflow task. Live runs meet orderings no recorded history has (CI once saw a pool's run
under a flood of notices fail to replay), so each test's own runs are replayed, not only the recorded ones.
"""

from datetime import UTC, datetime, timedelta

from google.protobuf.empty_pb2 import Empty
from google.protobuf.timestamp_pb2 import Timestamp
from temporalio.api.filter.v1 import StartTimeFilter
from temporalio.api.workflow.v1 import WorkflowExecutionInfo
from temporalio.api.workflowservice.v1 import (
    ListClosedWorkflowExecutionsRequest,
    ListOpenWorkflowExecutionsRequest,
)
from temporalio.client import Client, WorkflowHistory
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import Replayer

from workers.sandbox import workflow_runner
from workflows.registry import ALL_WORKFLOWS


async def _runs_since(client: Client, since: datetime) -> list[WorkflowExecutionInfo]:
    """Open and closed runs started since `since` (the listing both the dev and the time-skipping server have)."""
    earliest = Timestamp()
    earliest.FromDatetime(since)
    runs: list[WorkflowExecutionInfo] = []
    for request in (ListOpenWorkflowExecutionsRequest(namespace=client.namespace, maximum_page_size=1000,
                                                      start_time_filter=StartTimeFilter(earliest_time=earliest)),
                    ListClosedWorkflowExecutionsRequest(namespace=client.namespace, maximum_page_size=1000,
                                                        start_time_filter=StartTimeFilter(earliest_time=earliest))):
        while True:
            if isinstance(request, ListOpenWorkflowExecutionsRequest):
                page = await client.workflow_service.list_open_workflow_executions(request)
            else:
                page = await client.workflow_service.list_closed_workflow_executions(request)
            runs += page.executions
            if not page.next_page_token:
                break
            request.next_page_token = page.next_page_token
    return runs


async def server_now(client: Client) -> datetime:
    """The server's time: a time-skipping server's is virtual, ahead of the wall clock."""
    try:
        reply = await client.test_service.get_current_time(Empty())
    except RPCError as err:  # a dev server keeps the wall clock
        if err.status != RPCStatusCode.UNIMPLEMENTED:
            raise
        return datetime.now(UTC)
    return reply.time.ToDatetime(tzinfo=UTC)


async def replay_every_run(client: Client, task_queue: str, since: datetime) -> int:
    """Replays every run of `task_queue` started since `since` (server time), decoding with `client`'s converter (a
    worker's); raises naming those that do not replay. Returns how many replayed."""
    histories: list[WorkflowHistory] = []
    for run in await _runs_since(client, since - timedelta(seconds=1)):
        handle = client.get_workflow_handle(run.execution.workflow_id, run_id=run.execution.run_id)
        history = await handle.fetch_history()
        # Its first event names the task queue (a time-skipping server's listing leaves it out).
        if history.events[0].workflow_execution_started_event_attributes.task_queue.name == task_queue:
            histories.append(history)
    replayer = Replayer(workflows=ALL_WORKFLOWS, data_converter=client.data_converter,
                        workflow_runner=workflow_runner())
    failures = []
    for history in histories:
        result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
        if result.replay_failure is not None:
            failures.append(f"{history.workflow_id}: {result.replay_failure}")
    assert not failures, "runs that do not replay on today's code:\n" + "\n".join(failures)
    return len(histories)
