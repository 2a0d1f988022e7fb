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

from temporalio.api.enums.v1 import VersionDrainageStatus
from temporalio.api.workflowservice.v1 import (
    DescribeWorkerDeploymentRequest,
    DescribeWorkerDeploymentResponse,
    SetWorkerDeploymentCurrentVersionRequest,
)
from temporalio.client import Client
from temporalio.common import VersioningBehavior, WorkerDeploymentVersion
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import WorkerDeploymentConfig

import models
import workflows
from workers.settings import Settings, SettingsError
from workflows.api import UPGRADABLE_TYPES

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
    return tuple(Path(package.__file__).resolve().parent for package in (workflows, models))


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


def pinned(version: WorkerDeploymentVersion) -> WorkerDeploymentConfig:
    """A worker of `version` whose every workflow type is pinned (workflows/versioning.py)."""
    return WorkerDeploymentConfig(version=version, use_worker_versioning=True,
                                  default_versioning_behavior=VersioningBehavior.PINNED)


def deployment_config(settings: Settings) -> WorkerDeploymentConfig | None:
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


async def activate_if_due(client: Client, settings: Settings, build: str) -> str:
    """What AZMC_MAKE_CURRENT asks of a starting worker: `first` makes its version current only when none is
    (a new installation works at once; a deploy waits for the operator), `always` every time (`azmc dev`)."""
    current = current_build(await describe(client, settings.deployment_name))
    if current == build:
        return f"version {build} is current"
    if unversioned := await unversioned_runs(client):
        return f"not made current: {unversioned} {UNVERSIONED_LEFT}"
    if settings.make_current == "always" or (settings.make_current == "first" and current is None):
        await make_current(client, settings.deployment_name, build)
        return f"made version {build} current" + (f" (was {current})" if current else "")
    if current is None:
        return f"no version is current: `azmc deployment promote` (or AZMC_MAKE_CURRENT=first) makes {build} current"
    return f"version {current} is current; this worker's {build} takes new work once promoted (docs/upgrades.md)"


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
