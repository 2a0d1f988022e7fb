"""Real azure-mgmt SDK clients (sync and .aio) pointed at the emulator with a static token."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from azure.core.credentials import AccessToken
from azure.core.pipeline import PipelineRequest
from azure.core.pipeline.policies import SansIOHTTPPolicy
from azure.mgmt.compute import ComputeManagementClient
from azure.mgmt.compute.aio import ComputeManagementClient as AsyncComputeManagementClient
from azure.mgmt.network import NetworkManagementClient
from azure.mgmt.network.aio import NetworkManagementClient as AsyncNetworkManagementClient
from azure.mgmt.resource.resources import ResourceManagementClient
from azure.mgmt.resourcegraph import ResourceGraphClient
from azure.mgmt.resourcegraph.aio import ResourceGraphClient as AsyncResourceGraphClient

from tests.support.emulator import EmulatorHandle


class StaticToken:
    """A credential that always hands out the same bearer token (the emulator accepts any)."""

    def __init__(self, token: str = "emulator-token") -> None:
        self._token = token

    def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        return AccessToken(self._token, int(time.time()) + 3600)


class AsyncStaticToken(StaticToken):
    async def get_token(self, *scopes: str, **kwargs: Any) -> AccessToken:
        return AccessToken(self._token, int(time.time()) + 3600)

    async def close(self) -> None:
        return None

    async def __aenter__(self) -> AsyncStaticToken:
        return self

    async def __aexit__(self, *args: object) -> None:
        return None


class AllowLoopbackHttp(SansIOHTTPPolicy):
    """azure-core refuses bearer tokens over http; the emulator is plain http on loopback."""

    def on_request(self, request: PipelineRequest) -> None:
        request.context.options["enforce_https"] = False


def client_kwargs(handle: EmulatorHandle, retry_total: int = 0) -> dict[str, Any]:
    # retry_total 0: tests must see Azure's answers, not the SDK's retries of them.
    return {"base_url": handle.url, "per_call_policies": [AllowLoopbackHttp()], "retry_total": retry_total,
            "polling_interval": 30}


@dataclass
class SyncClients:
    compute: ComputeManagementClient
    network: NetworkManagementClient
    graph: ResourceGraphClient
    resources: ResourceManagementClient  # resource groups and ARM's own listing of one

    def close(self) -> None:
        self.compute.close()
        self.network.close()
        self.graph.close()
        self.resources.close()


@dataclass
class AsyncClients:
    compute: AsyncComputeManagementClient
    network: AsyncNetworkManagementClient
    graph: AsyncResourceGraphClient

    async def close(self) -> None:
        await self.compute.close()
        await self.network.close()
        await self.graph.close()


def sdk_clients(handle: EmulatorHandle, token: str = "emulator-token", retry_total: int = 0) -> SyncClients:
    """Sync clients; `polling_interval` stays at the 30 s default so a missing retry hint shows as a stall."""
    cred = StaticToken(token)
    kw = client_kwargs(handle, retry_total)
    return SyncClients(
        compute=ComputeManagementClient(cred, handle.subscription_id, **kw),
        network=NetworkManagementClient(cred, handle.subscription_id, **kw),
        graph=ResourceGraphClient(cred, **kw),
        resources=ResourceManagementClient(cred, handle.subscription_id, **kw),
    )


def async_sdk_clients(handle: EmulatorHandle, token: str = "emulator-token", retry_total: int = 0) -> AsyncClients:
    cred = AsyncStaticToken(token)
    kw = client_kwargs(handle, retry_total)
    return AsyncClients(
        compute=AsyncComputeManagementClient(cred, handle.subscription_id, **kw),
        network=AsyncNetworkManagementClient(cred, handle.subscription_id, **kw),
        graph=AsyncResourceGraphClient(cred, **kw),
    )
