"""The azmc worker process: wires settings, Temporal, the Azure driver and the workflows together.

Several workers on the same task queue share the work; on SIGTERM/SIGINT a worker stops polling,
lets in-flight activities finish (up to graceful_shutdown_s) and exits, so Temporal retries what is
left on another worker.
"""

import asyncio
import gc
import itertools
import logging
import signal
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import timedelta
from typing import Any

from pydantic import ValidationError
from temporalio.client import Client
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig
from temporalio.worker import Worker

from activities.audit import AuditInterceptor
from activities.config import AzureConfig
from activities.driver import AzureDriver
from activities.metrics import WAIT_BUCKETS, WAIT_SECONDS
from activities.tracing import ActivitySpans
from codec.converter import describe_codec, for_workers, key_ids
from codec.holders import KeyHolders
from codec.missing_keys import MissingKeys
from models.offerings_memory import offerings_task_queue
from models.pace import DEFAULT_PACES, Budget, budget_task_queue
from models.validation import problem
from workers import tracing
from workers.connect import connect
from workers.deployment import activate_if_due, deployment_config, describe, refuse_taking_over
from workers.installation import installation_id
from workers.live_workers import with_codec_keys
from workers.pace_brake import PaceBrake
from workers.replicas import keep_replicas_counted
from workers.sandbox import workflow_runner
from workers.settings import Settings, SettingsError
from workers.sweep_schedule import ensure_sweep_schedule
from workflows.machine.operations import CREATE_SECONDS, DURATION_BUCKETS, REPAIR_SECONDS
from workflows.offerings.workflow import Offerings
from workflows.registry import ALL_WORKFLOWS

log = logging.getLogger("azmc.worker")

# Python's collector by default runs a young collection every 700 allocations, and its full ones walk every
# object imported at start; a worker's objects live as long as it does, so they are frozen and young
# collections run less often, for a little more memory (docs/performance.md has the numbers).
GC_YOUNG_THRESHOLD = 20_000
ACTIVATION_RETRY_CAP_S = 30.0


def tune_gc() -> None:
    """Call once everything is imported and built: what exists then lives as long as the process."""
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)


def azure_config(settings: Settings, installation: str | None = None) -> AzureConfig:
    """The driver's configuration; raises SettingsError when the subscription or endpoint is unusable.

    `installation`: the resolved installation id (workers/installation.py); AZMC_INSTALLATION_ID if not given.
    """
    try:
        return AzureConfig(
            subscription_id=settings.subscription(),
            installation_id=installation or settings.installation_id,
            endpoint=settings.azure_endpoint,
            cloud=settings.azure_cloud,
            emulator_token=settings.emulator_token(),
            arm_reads_per_s=settings.pace_arm_reads_per_s,
            arm_writes_per_s=settings.pace_arm_writes_per_s,
            arm_deletes_per_s=settings.pace_arm_deletes_per_s,
            force_delete_vms=settings.force_delete_vms,
        )
    except ValidationError as error:
        raise SettingsError(f"AZMC_AZURE_ENDPOINT / --azure-endpoint: {problem(error.errors()[0])}") from None


# azmc's histograms are in seconds (Prometheus' base unit); the runtime's default buckets are the SDK's milliseconds.
HISTOGRAM_BUCKETS = {WAIT_SECONDS: WAIT_BUCKETS, CREATE_SECONDS: DURATION_BUCKETS, REPAIR_SECONDS: DURATION_BUCKETS}


def telemetry_runtime(settings: Settings) -> Runtime | None:
    """A Runtime exporting the SDK's metrics and azmc's for Prometheus; None (the default runtime) when disabled.
    The SDK's keep their names and units (Temporal's own dashboards read them so: deploy/grafana/)."""
    if not settings.metrics_port:
        return None
    address = f"{settings.metrics_host}:{settings.metrics_port}"
    try:
        return Runtime(telemetry=TelemetryConfig(metrics=PrometheusConfig(
            bind_address=address, histogram_bucket_overrides=HISTOGRAM_BUCKETS)))
    except Exception as error:  # the core raises a bare exception when the port is taken
        raise SettingsError(
            f"cannot serve metrics on {address} ({error}); choose another AZMC_METRICS_PORT / --metrics-port, "
            "or 0 to turn metrics off"
        ) from None


def concurrency(settings: Settings) -> dict[str, Any]:
    """The Worker options that bound its work (chosen with bench/scale.py: workers/settings.py)."""
    return {
        "max_concurrent_activities": settings.max_concurrent_activities,
        "max_cached_workflows": settings.max_cached_workflows,
        "max_concurrent_workflow_tasks": settings.max_concurrent_workflow_tasks,
        "max_concurrent_workflow_task_polls": settings.workflow_task_polls,
        # One of those polls takes new machines, the others the sticky queue: WORKFLOW_TASK_POLLS.
        "nonsticky_to_sticky_poll_ratio": 1 / settings.workflow_task_polls,
    }


def worker_client(client: Client, holders: KeyHolders | None = None) -> Client:
    """The client a worker polls with: the same connection and keys, decoding as a worker must (a payload that
    does not decode reaches the workflow, which refuses the message, instead of failing its task forever).
    `holders`: which keys the other workers hold, kept by workers/replicas.py. A worker's client is returned as it
    is."""
    converter = client.data_converter
    if converter is for_workers(converter):
        return client
    runtime = client.service_client.config.runtime or Runtime.default()
    missing = MissingKeys(runtime.metric_meter, key_ids(converter))
    config = client.config()  # a copy
    config["data_converter"] = for_workers(converter, holders, missing)
    return Client(**config)


def worker_identity(client: Client) -> str:
    """The identity every worker of the process polls with: the client's, naming its codec keys
    (workers/live_workers.py), so a worker that lacks a key knows whether another has it."""
    return with_codec_keys(client.identity, key_ids(client.data_converter))


def activity_interceptors(client: Client) -> list[Any]:
    """Each result's ARM requests (the audit trail); with tracing on, a span per activity attempt too."""
    traced = [ActivitySpans()] if client.config()["plugins"] else []
    return [*traced, AuditInterceptor(client.data_converter)]


def build_worker(settings: Settings, client: Client, driver: AzureDriver) -> Worker:
    client = worker_client(client)
    return Worker(
        client,
        task_queue=settings.task_queue,
        workflows=ALL_WORKFLOWS,
        workflow_runner=workflow_runner(settings.workflow_sandbox),  # unsandboxed unless asked: workers/sandbox.py
        activities=driver.activities(settings.shared_offerings, settings.quota_read_every),
        # Each activity's Azure requests go into history with its result.
        interceptors=activity_interceptors(client),
        **concurrency(settings),
        graceful_shutdown_timeout=timedelta(seconds=settings.graceful_shutdown_s),
        deployment_config=deployment_config(settings),
        identity=worker_identity(client),
    )


def offerings_worker(client: Client, task_queue: str, max_cached_workflows: int = 10, **options: Any) -> Worker:
    """The shared memory of offerings on its own queue (models/offerings_memory.offerings_task_queue), so its
    answers never wait behind a backlog of machine tasks; every worker process polls it beside its own."""
    options.setdefault("workflow_runner", workflow_runner())
    client = worker_client(client)
    options.setdefault("identity", worker_identity(client))
    return Worker(client, task_queue=offerings_task_queue(task_queue), workflows=[Offerings],
                  max_cached_workflows=max_cached_workflows, **options)


def paced_workers(client: Client, task_queue: str, activities: Sequence[Callable[..., Any]],
                  paces: Mapping[Budget, float] = DEFAULT_PACES, **options: Any) -> list[Worker]:
    """One activity worker per Azure budget (models/pace.py), on the budget's own task queue: the server hands out
    its activities at most at `paces[budget]` a second across every worker of the installation."""
    client = worker_client(client)
    options.setdefault("interceptors", activity_interceptors(client))
    options.setdefault("identity", worker_identity(client))
    return [Worker(client, task_queue=budget_task_queue(task_queue, budget), activities=list(activities),
                   max_task_queue_activities_per_second=paces[budget], **options)
            for budget in Budget]


@asynccontextmanager
async def paced(client: Client, task_queue: str, activities: Sequence[Callable[..., Any]],
                **options: Any) -> AsyncIterator[None]:
    """The paced workers of `task_queue` running, for a test or bench that builds its own machine worker."""
    async with AsyncExitStack() as stack:
        for worker in paced_workers(client, task_queue, activities, **options):
            await stack.enter_async_context(worker)
        yield


def build_workers(settings: Settings, client: Client, driver: AzureDriver) -> list[Worker]:
    """The machines' worker, the memory's and the paced Azure writers, run side by side by one process."""
    shutdown = timedelta(seconds=settings.graceful_shutdown_s)
    return [build_worker(settings, client, driver),
            offerings_worker(client, settings.task_queue, workflow_runner=workflow_runner(settings.workflow_sandbox),
                             graceful_shutdown_timeout=shutdown, deployment_config=deployment_config(settings)),
            *paced_workers(client, settings.task_queue, driver.activities(settings.shared_offerings),
                           settings.paces(), max_concurrent_activities=settings.max_concurrent_activities,
                           graceful_shutdown_timeout=shutdown, deployment_config=deployment_config(settings))]


async def activate(client: Client, settings: Settings, build: str) -> None:
    """AZMC_MAKE_CURRENT's step, tried again until it is done (a server restarting, unreachable for a while): until
    then, machines of a new installation would wait for a current version. The worker serves its version meanwhile."""
    for attempt in itertools.count():
        try:
            said = await activate_if_due(client, settings, build)
        except Exception as error:
            wait_s = min(2.0 ** attempt, ACTIVATION_RETRY_CAP_S)
            log.warning("worker deployment %s: version %s not made current yet (%s); trying again in %.0f s",
                        settings.deployment_name, build, error, wait_s)
            await asyncio.sleep(wait_s)
            continue
        log.info("worker deployment %s: %s", settings.deployment_name, said)
        return


async def run_worker(settings: Settings) -> None:
    """Run until SIGTERM/SIGINT. Raises SettingsError (one line) when a setting or Temporal is unusable."""
    azure_config(settings)  # validate Azure settings before touching the network
    holders = KeyHolders()  # which codec keys the other workers hold: kept by keep_replicas_counted
    runtime = telemetry_runtime(settings)
    client = worker_client(await connect(settings, runtime, tracing.plugins()), holders)
    if settings.worker_versioning:
        await describe(client, settings.deployment_name)  # a server without Worker Versioning: one line, and stop
        await refuse_taking_over(client, settings)  # before its polls put this version on the task queues
    installation = await installation_id(settings, client)
    if settings.ensure_schedule:
        log.info("fleet sweep schedule %s", await ensure_sweep_schedule(client, settings))
    driver = await AzureDriver.open(azure_config(settings, installation), runtime.metric_meter if runtime else None)
    try:
        workers = build_workers(settings, client, driver)
        tune_gc()
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        running = asyncio.ensure_future(asyncio.gather(*(worker.run() for worker in workers)))
        stopping = asyncio.create_task(stop.wait())
        version = deployment_config(settings)
        # The server learns of the version from the polls just started; a stop never waits for this.
        activation = asyncio.create_task(activate(client, settings, version.version.build_id)) if version else None
        own_version = version.version if version else None
        counting = asyncio.create_task(keep_replicas_counted(client, settings.task_queue, driver.pace, holders,
                                                             worker_identity(client), own_version))
        brake = PaceBrake(client, settings.task_queue, settings.paces())
        driver.pace.on_queue_throttled = brake.queue_throttled
        releasing = asyncio.create_task(brake.keep_releasing())
        log.info(
            "worker started",
            extra={
                "temporal": settings.temporal_address,
                "namespace": settings.temporal_namespace,
                "task_queue": settings.task_queue,
                "offerings_task_queue": offerings_task_queue(settings.task_queue),
                "azure": settings.azure_endpoint or "public Azure",
                "installation_id": installation,
                "metrics_port": settings.metrics_port,
                "encryption": describe_codec(client.data_converter),
                "deployment_version": f"{settings.deployment_name}:{version.version.build_id}" if version else
                "unversioned",
            },
        )
        either: set[asyncio.Future[Any]] = {running, stopping}
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        counting.cancel()
        releasing.cancel()
        if activation is not None:
            activation.cancel()
        if stop.is_set():
            log.info("shutting down", extra={"grace_s": settings.graceful_shutdown_s})
            await asyncio.gather(*(worker.shutdown() for worker in workers))
        stopping.cancel()
        await running
        log.info("worker stopped")
    finally:
        await driver.close()
        tracing.flush()
