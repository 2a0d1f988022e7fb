"""Worker Versioning: which Worker Deployment Version a worker serves, and making it the current one.

Every workflow type is pinned (workflows/versioning.py): a run only ever meets the code it started on, and
moves to the current version by continuing as new at a safe point. So a build id must change whenever the
workflow code does: it is the package version and a digest of every file the workflows execute or decode
with (workflows/ and models/). docs/upgrades.md is the operator's path.
"""

import asyncio
import functools
import hashlib
import logging
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from temporalio.api.enums.v1 import TaskQueueType, VersionDrainageStatus
from temporalio.api.workflowservice.v1 import (
    DescribeWorkerDeploymentRequest,
    DescribeWorkerDeploymentResponse,
    SetWorkerDeploymentCurrentVersionRequest,
)
from temporalio.client import Client
from temporalio.common import VersioningBehavior, WorkerDeploymentVersion
from temporalio.service import RPCError, RPCStatusCode

import models
import workflows
from models.offerings_memory import offerings_task_queue
from models.temporal_api import UPGRADABLE_TYPES
from workers.settings import Settings, SettingsError
from workers.task_queues import describe_task_queue

if TYPE_CHECKING:  # the SDK's worker package: only for a worker, never for the CLI's commands
    from temporalio.worker import WorkerDeploymentConfig

log = logging.getLogger("azmc.deployment")

# The server's word on a version no longer current: draining while pinned runs remain, then drained.
DRAINAGE = {VersionDrainageStatus.VERSION_DRAINAGE_STATUS_UNSPECIFIED: "",
            VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINING: "draining",
            VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED: "drained"}
# The server limits the requests per deployment: a throttled one is asked again after these waits (None: give up).
THROTTLED_WAITS_S = (0.5, 1.0, 2.0, 4.0, None)
# How long a new worker waits for the server to know its version (it registers with the first poll).
REGISTRATION_WAIT_S = 30.0


def code_digest(*packages: Path) -> str:
    """sha256 over the path and bytes of every .py file under the packages, in a stable order."""
    digest = hashlib.sha256()
    for package in packages:
        for path in sorted(package.rglob("*.py")):
            digest.update(str(path.relative_to(package.parent)).encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def workflow_packages() -> tuple[Path, ...]:
    return tuple(Path(package.__file__).resolve().parent for package in (workflows, models))  # type: ignore[arg-type]  # a package read from files has a __file__


def package_version() -> str:
    try:
        return metadata.version("azmc")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "0+checkout"


@functools.cache  # the code does not change under a running process: read and hashed once
def build_id() -> str:
    """`<package version>-<12 hex digits of the workflow code>`: two different codes never share one."""
    return f"{package_version()}-{code_digest(*workflow_packages())[:12]}"


def worker_version(settings: Settings) -> WorkerDeploymentVersion:
    """This code's version, or the one the Temporal Worker Controller registered for the pod (AZMC_BUILD_ID)."""
    return WorkerDeploymentVersion(deployment_name=settings.deployment_name, build_id=settings.build_id or build_id())


def named(version: WorkerDeploymentVersion) -> str:
    """`deployment:build`, as the TemporalWorkerDeploymentVersion search attribute writes it."""
    return f"{version.deployment_name}:{version.build_id}"


def pinned(version: WorkerDeploymentVersion) -> "WorkerDeploymentConfig":
    """A worker of `version` whose every workflow type is pinned (workflows/versioning.py)."""
    from temporalio.worker import WorkerDeploymentConfig

    return WorkerDeploymentConfig(version=version, use_worker_versioning=True,
                                  default_versioning_behavior=VersioningBehavior.PINNED)


def deployment_config(settings: Settings) -> "WorkerDeploymentConfig | None":
    """The Worker option; None runs unversioned (AZMC_WORKER_VERSIONING=false, docs/upgrades.md)."""
    return pinned(worker_version(settings)) if settings.worker_versioning else None


async def describe(client: Client, deployment: str) -> DescribeWorkerDeploymentResponse | None:
    """The deployment as the server knows it; None before any worker of it polled. Raises SettingsError
    when the server has no Worker Versioning. The server limits requests per deployment: a throttled one is
    asked again a few times."""
    request = DescribeWorkerDeploymentRequest(namespace=client.namespace, deployment_name=deployment)
    for wait_s in THROTTLED_WAITS_S:
        try:
            return await client.workflow_service.describe_worker_deployment(request)
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                return None
            if error.status == RPCStatusCode.UNIMPLEMENTED:
                raise SettingsError(
                    f"Temporal at {client.service_client.config.target_host} has no Worker Versioning "
                    f"({error.message}): azmc needs a server of release 1.29.1 or later, or "
                    "AZMC_WORKER_VERSIONING=false to run unversioned (docs/upgrades.md says what that costs)"
                ) from None
            if error.status != RPCStatusCode.RESOURCE_EXHAUSTED or wait_s is None:
                raise
        await asyncio.sleep(wait_s)
    return None  # not reached: the last wait is None


def current_build(described: DescribeWorkerDeploymentResponse | None) -> str | None:
    """The current version's build id; None when no version is current yet."""
    if described is None:
        return None
    routing = described.worker_deployment_info.routing_config
    if routing.HasField("current_deployment_version") and routing.current_deployment_version.build_id:
        return routing.current_deployment_version.build_id
    return None


async def make_current(client: Client, deployment: str, build: str, *, wait_s: float = REGISTRATION_WAIT_S) -> None:
    """Make `build` the deployment's current version, once the server knows it with every task queue the current
    version has (its workers poll both azmc queues; until each has polled, the server refuses)."""
    deadline = asyncio.get_running_loop().time() + wait_s
    while True:
        described = await describe(client, deployment)
        versions = [] if described is None else [
            summary.deployment_version.build_id
            for summary in described.worker_deployment_info.version_summaries]
        if described is not None and build in versions:
            try:
                await client.workflow_service.set_worker_deployment_current_version(
                    SetWorkerDeploymentCurrentVersionRequest(
                        namespace=client.namespace, deployment_name=deployment, build_id=build,
                        conflict_token=described.conflict_token, identity="azmc"))
                return
            except RPCError as error:  # a queue of it not polled yet, another change first, or throttled: again
                if error.status not in (RPCStatusCode.FAILED_PRECONDITION, RPCStatusCode.ABORTED,
                                        RPCStatusCode.RESOURCE_EXHAUSTED):
                    raise
                refused = error.message
        else:
            refused = "no worker of it polls"
        if asyncio.get_running_loop().time() > deadline:
            raise SettingsError(f"version {build} of deployment {deployment} not made current after {wait_s:.0f} s: "
                                f"{refused}; start its workers (both task queues) first")
        await asyncio.sleep(1.0)


def workflow_queues(task_queue: str) -> tuple[str, ...]:
    """The installation's task queues that start runs (the machines', the offerings memory's): the ones a current
    version serves. The paced activity queues follow their workflows' versions."""
    return task_queue, offerings_task_queue(task_queue)


async def serving(client: Client, task_queue: str) -> WorkerDeploymentVersion | None:
    """The version the server sends the task queue's new runs to: the latest current version of any Worker
    Deployment that polls it (a task queue may be in several). None: unversioned workers take them."""
    info = (await describe_task_queue(client, task_queue, TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW)).versioning_info
    version = info.current_deployment_version
    if info.HasField("current_deployment_version") and version.build_id:
        return WorkerDeploymentVersion(version.deployment_name, version.build_id)
    return None


async def served_by_others(client: Client, task_queue: str, deployment: str) -> dict[str, WorkerDeploymentVersion]:
    """The installation's workflow task queues that another Worker Deployment's current version serves."""
    found = {queue: await serving(client, queue) for queue in workflow_queues(task_queue)}
    return {queue: version for queue, version in found.items()
            if version is not None and version.deployment_name != deployment}


def taken(taken_by: dict[str, WorkerDeploymentVersion]) -> str:
    return "; ".join(f"task queue {queue} is served by {named(version)}, the current version of Worker Deployment "
                     f"{version.deployment_name}" for queue, version in taken_by.items())


async def refuse_taking_over(client: Client, settings: Settings) -> None:
    """Raises SettingsError when this worker would make its version current on a task queue another deployment
    serves: every run there would move to it, and stall once it stops. AZMC_TAKE_OVER=true means it."""
    if not settings.worker_versioning or settings.make_current == "never" or settings.take_over:
        return
    others = await served_by_others(client, settings.task_queue, settings.deployment_name)
    if others:
        mine = named(worker_version(settings))
        deployment = next(iter(others.values())).deployment_name
        raise SettingsError(
            f"{taken(others)}; this worker is {mine}, of Worker Deployment {settings.deployment_name}, and would "
            f"make its version current there (AZMC_MAKE_CURRENT={settings.make_current}), moving every run to it. "
            f"Join that deployment (AZMC_DEPLOYMENT_NAME={deployment}), serve only the runs pinned to {mine} "
            f"(AZMC_MAKE_CURRENT=never), or move the task queues to {settings.deployment_name} on purpose "
            "(AZMC_TAKE_OVER=true; docs/upgrades.md)")


async def activate_if_due(client: Client, settings: Settings, build: str) -> str:
    """What AZMC_MAKE_CURRENT asks of a starting worker: `first` makes its version current only when none is
    (a new installation works at once; a deploy waits for the operator), `always` every time (`azmc dev`); never
    where another deployment serves the task queues, unless AZMC_TAKE_OVER says so."""
    current = current_build(await describe(client, settings.deployment_name))
    others = await served_by_others(client, settings.task_queue, settings.deployment_name)
    if current == build and not others:
        return f"version {build} is current"
    if settings.make_current == "never":
        return f"{taken(others)}: this worker serves the runs pinned to {build}" if others else \
            _not_current(current, build)
    if unversioned := await unversioned_runs(client):
        return f"not made current: {unversioned} {UNVERSIONED_LEFT}"
    if others and not settings.take_over:
        return f"not made current: {taken(others)} (AZMC_TAKE_OVER=true moves them; docs/upgrades.md)"
    said = []
    if current != build and (settings.make_current == "always" or current is None):
        await make_current(client, settings.deployment_name, build)
        said.append(f"made version {build} current" + (f" (was {current})" if current else ""))
    if others:  # AZMC_TAKE_OVER: the other deployment's claim is withdrawn, not only outdated by a newer one
        await release(client, others)
        said.append(f"task queues taken over from {', '.join(sorted({named(v) for v in others.values()}))}")
    return "; ".join(said) or _not_current(current, build)


def _not_current(current: str | None, build: str) -> str:
    if current is None:
        return f"no version is current: `azmc deployment promote` (or AZMC_MAKE_CURRENT=first) makes {build} current"
    if current == build:
        return f"version {build} is current"
    return f"version {current} is current; this worker's {build} takes new work once promoted (docs/upgrades.md)"


async def release(client: Client, others: dict[str, WorkerDeploymentVersion]) -> None:
    """The Worker Deployments of `others` stop serving task queues: each one's current version becomes
    "unversioned", so the server routes by the other deployments' current versions. Runs pinned to their versions
    stay there."""
    for deployment in sorted({version.deployment_name for version in others.values()}):
        described = await describe(client, deployment)
        if described is None:
            continue
        await client.workflow_service.set_worker_deployment_current_version(SetWorkerDeploymentCurrentVersionRequest(
            namespace=client.namespace, deployment_name=deployment, build_id="",
            conflict_token=described.conflict_token, identity="azmc", ignore_missing_task_queues=True))


async def open_runs(client: Client, deployment: str, build: str) -> int:
    """Open runs pinned to a version (one visibility count): what must end or move before its workers stop."""
    query = f'ExecutionStatus = "Running" AND TemporalWorkerDeploymentVersion = "{deployment}:{build}"'
    return (await client.count_workflows(query)).count


async def wait_current(address: str, namespace: str, deployment: str, build: str, timeout_s: float) -> bool:
    """Whether `build` became the deployment's current version within `timeout_s` (a starting worker makes it so)."""
    client = await Client.connect(address, namespace=namespace)
    deadline = asyncio.get_running_loop().time() + timeout_s
    while asyncio.get_running_loop().time() < deadline:
        if current_build(await describe(client, deployment)) == build:
            return True
        await asyncio.sleep(1.0)
    return False


# Open runs read to find the versions of other deployments that runs are pinned to (then each version is counted).
SCANNED_RUNS = 1000


async def runs_on_other_deployments(client: Client, deployment: str) -> dict[str, int]:
    """Open runs of azmc's types pinned to versions of other Worker Deployments than `deployment` (one that took the
    task queues for a while), by `deployment:build`: they move only through workers of their own version."""
    types = ", ".join(repr(t) for t in UPGRADABLE_TYPES)
    query = (f'ExecutionStatus = "Running" AND WorkflowType IN ({types}) '
             f'AND TemporalWorkerDeployment != "{deployment}"')
    found: set[str] = set()
    async for run in client.list_workflows(query, limit=SCANNED_RUNS):  # the list leaves versioning_info empty
        found.update(str(v) for v in run.search_attributes.get("TemporalWorkerDeploymentVersion", []))
    versions = sorted(tuple(version.split(":", 1)) for version in found if ":" in version)
    return {f"{name}:{build}": await open_runs(client, name, build) for name, build in versions}


# Why no version of this code may become current while runs begun before Worker Versioning remain.
UNVERSIONED_LEFT = ("runs begun before Worker Versioning remain, which would replay on this code and fail: only "
                    "azmc 0.2 replays them; run its workers as the current version until `azmc deployment status` "
                    "shows none (docs/upgrades.md)")


async def unversioned_runs(client: Client) -> int:
    """Open machines, pools and memories begun before Worker Versioning: the first versioned release replays them
    when they wake (they move to the current version), a later one cannot (docs/upgrades.md). An unversioned
    worker ran a task of each (BuildIds); a run started while no version was current has run nothing yet."""
    query = (f'ExecutionStatus = "Running" AND WorkflowType IN ({", ".join(repr(t) for t in UPGRADABLE_TYPES)}) '
             'AND TemporalWorkerDeploymentVersion IS NULL AND BuildIds IS NOT NULL')
    return (await client.count_workflows(query)).count


async def versions(client: Client, deployment: str) -> list[tuple[str, str, int]]:
    """(build id, the server's drainage status, open runs) of each version, newest first."""
    described = await describe(client, deployment)
    if described is None:
        return []
    summaries = sorted(described.worker_deployment_info.version_summaries,
                       key=lambda summary: summary.create_time.ToDatetime(), reverse=True)
    return [(summary.deployment_version.build_id, DRAINAGE.get(summary.drainage_status, "unknown"),
             await open_runs(client, deployment, summary.deployment_version.build_id)) for summary in summaries]
