"""Why a run answers nothing: no live worker polls the version its next task goes to, or its workflow task keeps
failing. A command that waits on a run (a query, an update, `--wait`) asks first, and again when a query times
out, so it says so at once instead of timing out (docs/upgrades.md)."""

from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.enums.v1 import EventType, VersioningBehavior
from temporalio.api.workflow.v1 import WorkflowExecutionVersioningInfo
from temporalio.api.workflowservice.v1 import GetWorkflowExecutionHistoryReverseRequest
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.common import WorkerDeploymentVersion

from workers.deployment import named, serving
from workers.live_workers import live_workers, polling


def pinned_to(info: WorkflowExecutionVersioningInfo) -> WorkerDeploymentVersion | None:
    """The version a run's tasks must go to (pinned by its behavior or by an override); None: the task queue's
    current version takes them."""
    override = info.versioning_override
    if override.HasField("pinned") and override.pinned.version.build_id:
        return WorkerDeploymentVersion(override.pinned.version.deployment_name, override.pinned.version.build_id)
    if info.behavior == VersioningBehavior.VERSIONING_BEHAVIOR_PINNED and info.deployment_version.build_id:
        return WorkerDeploymentVersion(info.deployment_version.deployment_name, info.deployment_version.build_id)
    return None


def _start_one(version: WorkerDeploymentVersion) -> str:
    return f"AZMC_DEPLOYMENT_NAME={version.deployment_name} and build {version.build_id}"


async def why_stalled(client: Client, wf_id: str, failing_task: bool = True) -> str | None:
    """One line saying why the open run of `wf_id` cannot answer now; None when a worker can run its next task.
    `failing_task`: also when its workflow task keeps failing (which may pass: another worker may take it)."""
    handle = client.get_workflow_handle(wf_id)
    described = await handle.describe()
    if described.status != WorkflowExecutionStatus.RUNNING:
        return None
    info = described.raw_description.workflow_execution_info
    workers = await live_workers(client, info.task_queue)
    pinned = pinned_to(info.versioning_info)
    if pinned is not None and not polling(workers, pinned):
        return (f"{wf_id} is pinned to {named(pinned)}, which no worker polls; start that build "
                f"({_start_one(pinned)}): a pinned run moves to another version only through its own workers")
    if pinned is None:
        current = await serving(client, info.task_queue)
        if not polling(workers, current):
            shown = f"current version {named(current)}" if current else "unversioned workers"
            return (f"{wf_id} waits on task queue {info.task_queue}, whose {shown} no worker polls; start that build "
                    "or promote another (`azmc deployment promote`)")
    failed = described.raw_description.pending_workflow_task.attempt - 1
    if failing_task and failed > 0:
        reason = await _last_failure(client, wf_id, described.run_id or "")
        return f"{wf_id}: its workflow task failed {failed} time(s), and Temporal retries it: {reason}"
    return None


async def _last_failure(client: Client, wf_id: str, run_id: str) -> str:
    """The message of the run's latest recorded workflow task failure (Temporal records a retried one only at times)."""
    history = await client.workflow_service.get_workflow_execution_history_reverse(
        GetWorkflowExecutionHistoryReverseRequest(namespace=client.namespace, maximum_page_size=50,
                                                  execution=WorkflowExecution(workflow_id=wf_id, run_id=run_id)))
    for event in history.history.events:
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED:
            return event.workflow_task_failed_event_attributes.failure.message
    return "see `temporal workflow show`"
