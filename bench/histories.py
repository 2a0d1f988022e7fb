"""What a workflow's history says about its cost: events, workflow tasks, activities, upserts, timeouts."""

import asyncio
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, fields

from temporalio.api.enums.v1 import EventType, TimeoutType, WorkflowTaskFailedCause
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

_E = EventType
SCHEDULE_TO_START = TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START
LOCAL_ACTIVITY_MARKER = "core_local_activity"  # sdk-core's marker name for a local activity's result


@dataclass
class HistoryStats:
    """Totals over some workflows (`workflows` of them); per-workflow averages via `per()`."""

    workflows: int = 0
    events: int = 0
    workflow_tasks: int = 0  # completed workflow tasks: one worker round trip each
    workflow_task_timeouts: int = 0
    sticky_task_timeouts: int = 0  # of those: a sticky queue's schedule-to-start (the task moved on)
    workflow_task_failures: int = 0
    activities_before_signal: int = 0  # activities and local activities
    activities_after_signal: int = 0
    local_activities: int = 0
    timers: int = 0
    upserts: int = 0  # search-attribute upserts
    upsert_tasks: int = 0  # workflow tasks with an upsert: a visibility write each (bench/visibility_cost.py)

    def add(self, other: "HistoryStats") -> None:
        for field in fields(self):
            setattr(self, field.name, getattr(self, field.name) + getattr(other, field.name))

    def per(self, name: str) -> float:
        return getattr(self, name) / max(self.workflows, 1)


def tasks_with_upserts(events: Iterable[HistoryEvent]) -> int:
    """Workflow tasks whose commands upserted search attributes (a task's commands follow its completion)."""
    tasks, upserted = 0, False
    for event in events:
        if event.event_type == _E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
            upserted = False
        elif event.event_type == _E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES and not upserted:
            tasks, upserted = tasks + 1, True
    return tasks


async def history_stats(client: Client, workflow_id: str) -> HistoryStats:
    kinds: Counter[int] = Counter()
    before = after = local = sticky = 0
    signalled = False
    events = [event async for event in client.get_workflow_handle(workflow_id).fetch_history_events()]
    for event in events:
        kinds[event.event_type] += 1
        if event.event_type == _E.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
            sticky += event.workflow_task_timed_out_event_attributes.timeout_type == SCHEDULE_TO_START
        elif event.event_type == _E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
            signalled = True
        elif event.event_type == _E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED or (
                event.event_type == _E.EVENT_TYPE_MARKER_RECORDED
                and event.marker_recorded_event_attributes.marker_name == LOCAL_ACTIVITY_MARKER):
            local += event.event_type == _E.EVENT_TYPE_MARKER_RECORDED
            after += signalled
            before += not signalled
    return HistoryStats(
        workflows=1, events=sum(kinds.values()), workflow_tasks=kinds[_E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED],
        workflow_task_timeouts=kinds[_E.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT], sticky_task_timeouts=sticky,
        workflow_task_failures=kinds[_E.EVENT_TYPE_WORKFLOW_TASK_FAILED],
        activities_before_signal=before, activities_after_signal=after, local_activities=local,
        timers=kinds[_E.EVENT_TYPE_TIMER_STARTED], upserts=kinds[_E.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES],
        upsert_tasks=tasks_with_upserts(events),
    )


async def histories_stats(client: Client, workflow_ids: list[str], concurrency: int = 20) -> HistoryStats:
    """Totals over the histories of `workflow_ids`, read `concurrency` at a time."""
    total = HistoryStats()
    gate = asyncio.Semaphore(concurrency)

    async def one(workflow_id: str) -> None:
        async with gate:
            total.add(await history_stats(client, workflow_id))

    await asyncio.gather(*(one(workflow_id) for workflow_id in workflow_ids))
    return total


async def task_failures_by_cause(client: Client, query: str, concurrency: int = 20) -> Counter[str]:
    """The workflow task failures in the histories of every workflow `query` lists (closed ones too), by the
    server's cause and the failure's first words: what a failure counter alone does not say."""
    found: Counter[str] = Counter()
    gate = asyncio.Semaphore(concurrency)

    async def one(workflow_id: str, run_id: str) -> None:
        async with gate:
            async for event in client.get_workflow_handle(workflow_id, run_id=run_id).fetch_history_events():
                if event.event_type == _E.EVENT_TYPE_WORKFLOW_TASK_FAILED:
                    failed = event.workflow_task_failed_event_attributes
                    cause = WorkflowTaskFailedCause.Name(failed.cause).removeprefix("WORKFLOW_TASK_FAILED_CAUSE_")
                    found[f"{cause}: {failed.failure.message[:80]}"] += 1

    await asyncio.gather(*[one(execution.id, execution.run_id) async for execution in client.list_workflows(query)])
    return found
