"""What the server says of one of the installation's task queues (DescribeTaskQueue): its pollers
(workers/replicas.py) and its config (workers/pace_brake.py)."""

from typing import Any

from temporalio.api.enums.v1 import TaskQueueKind, TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest, DescribeTaskQueueResponse
from temporalio.client import Client


async def describe_task_queue(client: Client, name: str, queue_type: TaskQueueType.ValueType,
                              **flags: Any) -> DescribeTaskQueueResponse:
    """`flags`: DescribeTaskQueueRequest's report_* switches."""
    return await client.workflow_service.describe_task_queue(DescribeTaskQueueRequest(
        namespace=client.namespace, task_queue=TaskQueue(name=name, kind=TaskQueueKind.TASK_QUEUE_KIND_NORMAL),
        task_queue_type=queue_type, **flags))
