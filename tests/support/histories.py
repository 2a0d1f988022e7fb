"""What a workflow run's history says, as the tests read it."""

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle


async def task_failure_messages(handle: WorkflowHandle) -> list[str]:
    """The message of each failed workflow task in the run's history, oldest first (empty when none failed)."""
    return [event.workflow_task_failed_event_attributes.failure.message
            async for event in handle.fetch_history_events()
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED]
