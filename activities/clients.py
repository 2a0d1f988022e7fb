"""The ONE place that builds the async azure-mgmt clients, shared by every activity of a worker."""

import logging
import os
import time
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from azure.core.credentials import AccessToken
from azure.core.credentials_async import AsyncTokenCredential
from azure.core.pipeline import PipelineRequest
from azure.core.pipeline.policies import SansIOHTTPPolicy
from azure.mgmt.compute.aio import ComputeManagementClient
from azure.mgmt.marketplaceordering.aio import MarketplaceOrderingAgreements
from azure.mgmt.network.aio import NetworkManagementClient
from azure.mgmt.resource.resources.aio import ResourceManagementClient
from azure.mgmt.resourcegraph.aio import ResourceGraphClient
from azure.mgmt.resourcehealth.aio import ResourceHealthMgmtClient

from activities.arm_pace import ArmPace, ArmPacePolicy
from activities.audit import AuditPolicy
from activities.config import AzureConfig
from activities.lro import BoardPolling, RetryAfterPolling
from activities.metrics import AzureMetrics
from activities.read_cache import ReadCache
from activities.reading import json_lists
from activities.reading.group_listing import GroupListings, list_gap
from activities.reading.group_snapshots import GroupSnapshot, GroupSnapshots
from activities.reading.vm_statuses import VmStatusBoard, Watch
from activities.request_count import RequestCounter, RequestCountingPolicy
from activities.tracing import AzureIdsPolicy, request_span_name

# The SDK's http logging already redacts headers outside its allow-list (Authorization included);
# keep its per-request INFO lines out of worker logs unless someone turns them on deliberately.
logging.getLogger("azure.core.pipeline.policies.http_logging_policy").setLevel(logging.WARNING)


class StaticTokenCredential(AsyncTokenCredential):
    """A fixed bearer token for the emulator. Its repr never shows the token."""

    def __init__(self, token: str) -> None:
        self._token = token

    async def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        return AccessToken(self._token, int(time.time()) + 3600)

    async def close(self) -> None:
        return None

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return "StaticTokenCredential(<redacted>)"


class AllowLoopbackHttpPolicy(SansIOHTTPPolicy):
    """Lets the bearer policy send to a plain-http loopback emulator (config validated loopback-only)."""

    def on_request(self, request: PipelineRequest) -> None:
        request.context.options["enforce_https"] = False


@dataclass
class AzureClients:
    compute: ComputeManagementClient
    network: NetworkManagementClient
    graph: ResourceGraphClient
    # ARM's own listing of a resource group (resources.list_by_resource_group): no index lag, unlike the graph.
    resources: ResourceManagementClient
    health: ResourceHealthMgmtClient
    credential: AsyncTokenCredential
    counter: RequestCounter
    # This process's share of ARM's budgets, every request's token (activities/arm_pace.py).
    pace: ArmPace
    subscription_id: str
    # Which azmc installation these clients act for (activities/ownership.py); None: read-only use.
    installation_id: str | None
    # Waited between operation-status polls only when ARM's answer carries no Retry-After.
    polling_interval_s: float = 2.0
    # Where probes of a guest go instead of its private IP: the emulator's guest endpoint (None against Azure).
    guest_proxy: str | None = None
    # The Azure Retail Prices API's base URL (activities/reading/prices.py).
    prices_endpoint: str = "https://prices.azure.com"
    # What this worker last learned of each machine (activities/read_cache.py): spares reads ARM answered already.
    read_cache: ReadCache = field(default_factory=ReadCache)
    # One HTTP session for every probe of a guest (activities/health/probe.py): a probe runs every period per
    # machine, too often to open a connection pool each time. Made on first use, inside the worker's event loop.
    _probe_session: aiohttp.ClientSession | None = field(default=None, init=False, repr=False)
    # Marketplace terms agreements (activities/marketplace_terms.py): only specs with accept_terms use it.
    marketplace: MarketplaceOrderingAgreements | None = None
    # The shared status reads every VM operation of this worker waits on (activities/reading/vm_statuses.py).
    statuses: VmStatusBoard | None = field(default=None, init=False, repr=False)
    # ARM's lists of a resource group, shared by its machines that ask together (activities/reading/group_listing.py).
    listings: GroupListings = field(init=False, repr=False)
    # What Azure does to this worker, on its Prometheus endpoint (activities/metrics.py).
    metrics: AzureMetrics = field(default_factory=AzureMetrics)
    # The group's lists a crowd of paced writes checks ownership against (activities/reading/group_snapshots.py).
    snapshots: GroupSnapshots = field(init=False, repr=False)

    def __post_init__(self) -> None:
        def list_group(resource_group: str, name_filter: str | None) -> Any:
            return json_lists.group_resources(self.resources, self.subscription_id, resource_group, name_filter)

        self.listings = GroupListings(list_group, gap=lambda pages: list_gap(pages, self.pace.rate("reads")))
        sub = self.subscription_id
        self.snapshots = GroupSnapshots(
            resources=GroupSnapshot(lambda rg: json_lists.group_resources(self.resources, sub, rg, None)),
            vms=GroupSnapshot(lambda rg: json_lists.group_vms(self.compute, sub, rg)))

    def probe_session(self) -> aiohttp.ClientSession:
        if self._probe_session is None or self._probe_session.closed:
            self._probe_session = aiohttp.ClientSession()
        return self._probe_session

    def polling(self, *, final_get: bool = True) -> RetryAfterPolling:
        """The `polling=` of every begin_* call: Retry-After honoured from the first poll (activities/lro.py)."""
        return RetryAfterPolling(self.polling_interval_s, final_get=final_get)

    def vm_polling(self, resource_group: str, name: str, watch: Watch, *, final_get: bool = False) -> BoardPolling:
        """The `polling=` of a VM operation whose end the shared status reads see (`watch`), not its own polls."""
        return BoardPolling(self.polling_interval_s, self.status_board(), self.vm_id(resource_group, name), watch,
                            final_get=final_get)

    def status_board(self) -> VmStatusBoard:
        if self.statuses is None:
            self.statuses = VmStatusBoard(lambda: json_lists.vm_statuses(self.compute, self.subscription_id))
        return self.statuses

    def vm_id(self, resource_group: str, name: str) -> str:
        return f"/subscriptions/{self.subscription_id}/resourceGroups/{resource_group}" \
               f"/providers/Microsoft.Compute/virtualMachines/{name}"

    async def close(self) -> None:
        await self.compute.close()
        await self.network.close()
        await self.graph.close()
        await self.resources.close()
        await self.health.close()
        if self.marketplace is not None:
            await self.marketplace.close()
        if self._probe_session is not None:
            await self._probe_session.close()
        await self.credential.close()


def _credential(config: AzureConfig) -> AsyncTokenCredential:
    if config.emulator_token is not None:  # AzureConfig allows it only with a loopback endpoint
        return StaticTokenCredential(config.emulator_token)
    from azure.identity.aio import DefaultAzureCredential  # imported lazily: heavy, unused with the emulator

    return DefaultAzureCredential(authority=config.target.authority)


# With trust_env aiohttp reads the proxy variables and ~/.netrc again on EVERY request (the netrc read in a
# thread-pool hop): ~9% of the worker's CPU in bench/lifecycle.py. Trusted only when a proxy is configured.
PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")


def proxy_configured() -> bool:
    return any(os.environ.get(name) for name in PROXY_VARIABLES)


def build_clients(config: AzureConfig, metrics: AzureMetrics | None = None) -> AzureClients:
    """Build one client per service; call `close()` on worker shutdown. `metrics`: the worker's (a no-op without)."""
    counter = RequestCounter()
    metrics = metrics or AzureMetrics()
    pace = ArmPace(config.arm_reads_per_s, config.arm_writes_per_s, config.arm_deletes_per_s)
    credential = _credential(config)
    per_call = [AllowLoopbackHttpPolicy()] if config.plain_http else []
    common: dict[str, Any] = {
        "per_call_policies": per_call,
        "per_retry_policies": [ArmPacePolicy(pace, metrics), RequestCountingPolicy(counter, metrics), AuditPolicy()],
        # azure-core's span of each request (when tracing is on: workers/tracing.py), named by what it does and
        # given ARM's correlation id and error code (activities/tracing.py).
        "network_span_namer": request_span_name,
        "http_logging_policy": AzureIdsPolicy(),
        "retry_total": config.retry_total,
        "polling_interval": config.polling_interval_s,
        "read_timeout": config.request_timeout_s,
        "connection_timeout": min(config.request_timeout_s, 20.0),
        "logging_enable": False,  # never dump request headers/bodies (bearer token) to logs
        "use_env_settings": proxy_configured(),
    }
    # Always explicit: the SDK's defaults are public Azure's, wrong for Azure Government and China.
    common["base_url"] = config.target.base_url
    common["credential_scopes"] = list(config.target.credential_scopes)
    compute = ComputeManagementClient(credential, config.subscription_id, **common)
    network = NetworkManagementClient(credential, config.subscription_id, **common)
    graph = ResourceGraphClient(credential, **common)
    resources = ResourceManagementClient(credential, config.subscription_id, **common)
    health = ResourceHealthMgmtClient(credential, config.subscription_id, **common)
    return AzureClients(compute, network, graph, resources, health, credential, counter, pace, config.subscription_id,
                        config.installation_id, config.polling_interval_s, guest_proxy=config.guest_proxy,
                        prices_endpoint=config.prices_endpoint,
                        marketplace=MarketplaceOrderingAgreements(credential, config.subscription_id, **common),
                        metrics=metrics)
