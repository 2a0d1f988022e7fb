"""Ask and tell the shared memory of refused offerings (the `Offerings` workflow) for a machine's workflow.

A workflow cannot update another workflow itself, so these activities do it with the worker's Temporal
client, with update-with-start: the first machine of a subscription+location starts the memory, and
machines racing to start it all reach the one workflow (WorkflowIDConflictPolicy.USE_EXISTING).
"""

import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

from temporalio import activity
from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy, WorkflowIDReusePolicy
from temporalio.service import RPCError, RPCStatusCode

from activities.arm import heartbeating
from activities.metrics import AzureMetrics
from activities.offerings.view import OfferingsView
from models.activity_io import ActivityName, UsagesQuestion
from models.offering_claims import Claim, ClaimRequest
from models.offerings import Availability, Refusal, availability
from models.offerings_memory import (
    OfferingsMemory,
    OfferingsQuestion,
    ProbeRelease,
    RefusalReport,
    offerings_task_queue,
    offerings_workflow_id,
)
from models.quota import DEFAULT_READ_EVERY, QuotaUsage
from models.temporal_api import (
    OFFERINGS_AVAILABLE_QUERY,
    OFFERINGS_CLAIM_UPDATE,
    OFFERINGS_REFUSED_UPDATE,
    OFFERINGS_RELEASE_UPDATE,
    OFFERINGS_WORKFLOW_TYPE,
)

log = logging.getLogger("azmc.offerings")
UsageReader = Callable[[UsagesQuestion], Awaitable[list[QuotaUsage]]]
SkuReader = Callable[[UsagesQuestion], Awaitable[dict[str, bool]]]  # size (lower case) -> accelerated networking
MAX_ERROR_CHARS = 300  # the memory shows why usages were not read; Azure's messages run long


def _memory_id(subscription: str, location: str, private_to: str = "") -> str:
    """The memory's workflow id; `private_to` (a machine's workflow id) gives that machine a memory of its own."""
    shared = offerings_workflow_id(subscription, location)
    return f"{shared}/{private_to}" if private_to else shared


def _memory(subscription: str, location: str, task_queue: str, private_to: str = "") -> WithStartWorkflowOperation:
    return WithStartWorkflowOperation(
        OFFERINGS_WORKFLOW_TYPE,
        OfferingsMemory(subscription=subscription, location=location),
        id=_memory_id(subscription, location, private_to),
        task_queue=offerings_task_queue(task_queue),
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        # A memory someone terminated may start again, empty.
        id_reuse_policy=WorkflowIDReusePolicy.ALLOW_DUPLICATE,
        static_summary=f"Offerings Azure refused in {location}",
    )


T = TypeVar("T")


async def _unless_no_memory(call: Awaitable[T], without_memory: T) -> T:
    """`call`'s answer, or `without_memory` when no memory was ever started for the place (nothing refused)."""
    try:
        return await call
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return without_memory
        raise


async def ask(client: Client, question: OfferingsQuestion, private_to: str = "") -> Availability:
    """Which offerings are not refused at `question.at` (a read: no claim); all when nothing was refused."""
    handle = client.get_workflow_handle(_memory_id(question.subscription, question.location, private_to))
    return await _unless_no_memory(handle.query(OFFERINGS_AVAILABLE_QUERY, question, result_type=Availability),
                                   availability(question.offerings, [], question.at))


async def _claim(client: Client, request: ClaimRequest, task_queue: str, private_to: str) -> Claim:
    return await client.execute_update_with_start_workflow(
        OFFERINGS_CLAIM_UPDATE, request, result_type=Claim,
        start_workflow_operation=_memory(request.subscription, request.location, task_queue, private_to))


async def claim(client: Client, request: ClaimRequest, task_queue: str, private_to: str = "",
                read_usages: UsageReader | None = None, read_every: timedelta = DEFAULT_READ_EVERY,
                read_skus: SkuReader | None = None) -> Claim:
    """The offering the machine tries now (models/offering_claims.py), starting the memory if needed. With
    `read_usages`, when the memory asks for a reading of the usages (models/quota.py), it is read here and the
    claim asked again with it; a reading that fails is told, and the memory foresees no quota until the next.
    `read_skus` likewise for the resource SKUs (models/size_features.py), at most once a day per location."""
    request = request.model_copy(update={"reads_usages": read_usages is not None, "read_every": read_every,
                                         "reads_skus": read_skus is not None})
    answer = await _claim(client, request, task_queue, private_to)
    question = UsagesQuestion(subscription=request.subscription, location=request.location)
    if answer.read_skus and read_skus is not None:
        try:
            reading: dict[str, Any] = {"skus": await read_skus(question)}
        except Exception as err:  # the machine goes on: accelerated networking is "as before" until a reading
            log.warning("could not read the resource SKUs of %s: %s", request.location, err)
            reading = {"skus_error": str(err)[:MAX_ERROR_CHARS] or type(err).__name__}
        request = request.model_copy(update={**reading, "reads_skus": False})
        answer = await _claim(client, request, task_queue, private_to)
        request = request.model_copy(update={"skus": None, "skus_error": ""})
    if not answer.read_usages or read_usages is None:
        return answer
    try:
        reading = {"usages": await read_usages(question)}
    except Exception as err:  # whatever failed, the machine goes on: Azure's own refusal is still remembered
        log.warning("could not read the compute usages of %s: %s", request.location, err)
        reading = {"usages_error": str(err)[:MAX_ERROR_CHARS] or type(err).__name__}
    return await _claim(client, request.model_copy(update=reading), task_queue, private_to)


async def tell(client: Client, report: RefusalReport, task_queue: str, private_to: str = "") -> Refusal | None:
    """An attempt's outcome (starting the memory if needed); the refusal remembered, or None."""
    offering = report.offering
    return await client.execute_update_with_start_workflow(
        OFFERINGS_REFUSED_UPDATE, report, result_type=Refusal | None,  # type: ignore[arg-type]  # the SDK's annotation asks a class; its pydantic converter takes a union
        start_workflow_operation=_memory(offering.subscription, offering.location, task_queue, private_to))


async def release(client: Client, request: ProbeRelease, private_to: str = "") -> int:
    """A stopped machine's probes end; how many. No memory: nothing to release (none is started for it)."""
    handle = client.get_workflow_handle(_memory_id(request.subscription, request.location, private_to))
    return await _unless_no_memory(handle.execute_update(OFFERINGS_RELEASE_UPDATE, request, result_type=int), 0)


def activities(shared: bool = True, read_usages: UsageReader | None = None,
               read_every: timedelta = DEFAULT_READ_EVERY, read_skus: SkuReader | None = None,
               metrics: AzureMetrics | None = None) -> list[Callable[..., Any]]:
    """The activities, sharing one view of the memory (offerings_view.py): call once per worker.
    `shared=False` (AZMC_SHARED_OFFERINGS=false, the capacity bench's baseline) gives each machine a memory
    of its own: it learns only from its own refusals, as without a shared memory. `read_usages` (the driver's):
    how to read the usages when the memory asks (without it, no quota is foreseen); `read_every`
    (AZMC_QUOTA_READ_EVERY): how old the memory's reading may be; `read_skus` (the driver's): how to read the
    sizes' accelerated networking when the memory asks (without it, accelerated_networking null is off);
    `metrics` (the driver's): where refusals are counted by Azure's code."""

    view = OfferingsView()

    def private_to() -> str:
        return "" if shared else activity.info().workflow_id or ""

    @activity.defn(name=ActivityName.ASK_OFFERINGS.value)
    async def ask_offerings(request: ClaimRequest) -> Claim:
        """The shared memory's answer: the offering to try now, which to skip and until when."""
        client, task_queue, private = activity.client(), activity.info().task_queue, private_to()
        return await heartbeating(view.claim(_memory_id(request.subscription, request.location, private), request,
                                             lambda: claim(client, request, task_queue, private, read_usages,
                                                           read_every, read_skus)))

    @activity.defn(name=ActivityName.REPORT_REFUSAL.value)
    async def report_refusal(report: RefusalReport) -> Refusal | None:
        """Tell the shared memory how an attempt ended (refused, worked, or failed otherwise)."""
        client, task_queue, private = activity.client(), activity.info().task_queue, private_to()
        offering = report.offering
        if report.code and not report.worked and metrics is not None:
            metrics.refused(report.code)
        return await heartbeating(view.tell(_memory_id(offering.subscription, offering.location, private), report,
                                            lambda: tell(client, report, task_queue, private)))

    @activity.defn(name=ActivityName.RELEASE_PROBES.value)
    async def release_probes(request: ProbeRelease) -> int:
        """Tell the shared memory that a machine stopped: its probes end (how many)."""
        client, private = activity.client(), private_to()
        return await heartbeating(view.release(_memory_id(request.subscription, request.location, private), request,
                                               lambda: release(client, request, private)))

    return [ask_offerings, report_refusal, release_probes]

