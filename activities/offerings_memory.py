"""Ask and tell the shared memory of refused offerings (the `Offerings` workflow) for a machine's workflow.

A workflow cannot query or update another workflow itself, so these two activities do it with the worker's
Temporal client. Telling uses update-with-start: the first refusal in a subscription+location starts the
memory, and machines racing to start it all reach the one workflow (WorkflowIDConflictPolicy.USE_EXISTING).
"""

from collections.abc import Callable
from typing import Any

from temporalio import activity
from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.service import RPCError, RPCStatusCode

from models.activity_io import ActivityName
from models.offerings import Availability, Refusal, availability
from models.offerings_memory import OfferingsMemory, OfferingsQuestion, RefusalReport, offerings_workflow_id
from workflows.api import OFFERINGS_AVAILABLE_QUERY, OFFERINGS_REFUSED_UPDATE, OFFERINGS_WORKFLOW_TYPE


def _memory_id(subscription: str, location: str, private_to: str) -> str:
    """The memory's workflow id; `private_to` (a machine's workflow id) gives that machine a memory of its own."""
    shared = offerings_workflow_id(subscription, location)
    return f"{shared}/{private_to}" if private_to else shared


async def ask(client: Client, question: OfferingsQuestion, private_to: str = "") -> Availability:
    """Which of the offerings are available at `question.at`; all of them when nothing was ever refused here."""
    handle = client.get_workflow_handle(_memory_id(question.subscription, question.location, private_to))
    try:
        return await handle.query(OFFERINGS_AVAILABLE_QUERY, question, result_type=Availability)
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return availability(question.offerings, [], question.at)
        raise


async def tell(client: Client, report: RefusalReport, task_queue: str, private_to: str = "") -> Refusal | None:
    """Record the refusal (starting the memory if needed); the entry as remembered, None if not capacity."""
    offering = report.offering
    start = WithStartWorkflowOperation(
        OFFERINGS_WORKFLOW_TYPE,
        OfferingsMemory(subscription=offering.subscription, location=offering.location),
        id=_memory_id(offering.subscription, offering.location, private_to),
        task_queue=task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        # A memory someone terminated may start again, empty.
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
        static_summary=f"Offerings Azure refused in {offering.location}",
    )
    return await client.execute_update_with_start_workflow(
        OFFERINGS_REFUSED_UPDATE, report, start_workflow_operation=start, result_type=Refusal | None)


def activities(shared: bool = True) -> list[Callable[..., Any]]:
    """The two activities. `shared=False` (AZMC_SHARED_OFFERINGS=false, the capacity bench's baseline) gives
    each machine a memory of its own: it learns only from its own refusals, as without a shared memory."""

    def private_to() -> str:
        return "" if shared else activity.info().workflow_id

    @activity.defn(name=ActivityName.ASK_OFFERINGS.value)
    async def ask_offerings(question: OfferingsQuestion) -> Availability:
        """The shared memory's answer: which offerings to try, which to skip and until when."""
        return await ask(activity.client(), question, private_to())

    @activity.defn(name=ActivityName.REPORT_REFUSAL.value)
    async def report_refusal(report: RefusalReport) -> Refusal | None:
        """Tell the shared memory that Azure refused an offering (starting the memory if needed)."""
        return await tell(activity.client(), report, activity.info().task_queue, private_to())

    return [ask_offerings, report_refusal]


ACTIVITIES = activities()
