"""Which Azure cloud azmc talks to: its ARM endpoint, Entra ID authority and ARM token scope.

Public Azure, Azure Government and Azure China differ in all three; a mismatch is a token for the
wrong audience or a login at the wrong authority. The values come from the Azure SDK itself
(azure-mgmt-core's ARM endpoints, azure-identity's AzureAuthorityHosts), imported lazily because
settings validation must stay light.
"""

from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit


class AzureCloud(StrEnum):
    """The names `az cloud list` uses."""

    PUBLIC = "AzureCloud"
    US_GOVERNMENT = "AzureUSGovernment"
    CHINA = "AzureChinaCloud"


@dataclass(frozen=True)
class ArmTarget:
    """Everything a management client and its credential need to reach one cloud's ARM."""

    cloud: AzureCloud
    base_url: str  # without a trailing slash
    credential_scopes: tuple[str, ...]
    authority: str  # the Entra ID host azure-identity signs in at


def _sdk_endpoints(cloud: AzureCloud) -> tuple[str, tuple[str, ...]]:
    from azure.core import AzureClouds
    from azure.mgmt.core.tools import get_arm_endpoints

    sdk_cloud = {AzureCloud.PUBLIC: AzureClouds.AZURE_PUBLIC_CLOUD, AzureCloud.US_GOVERNMENT:
                 AzureClouds.AZURE_US_GOVERNMENT, AzureCloud.CHINA: AzureClouds.AZURE_CHINA_CLOUD}[cloud]  # fmt: skip
    endpoints = get_arm_endpoints(sdk_cloud)
    return endpoints["resource_manager"].rstrip("/"), tuple(endpoints["credential_scopes"])


def _authority(cloud: AzureCloud) -> str:
    from azure.identity import AzureAuthorityHosts

    return {AzureCloud.PUBLIC: AzureAuthorityHosts.AZURE_PUBLIC_CLOUD,
            AzureCloud.US_GOVERNMENT: AzureAuthorityHosts.AZURE_GOVERNMENT,
            AzureCloud.CHINA: AzureAuthorityHosts.AZURE_CHINA}[cloud]  # fmt: skip


def cloud_of_endpoint(endpoint: str) -> AzureCloud | None:
    """The cloud whose ARM endpoint this is (by host), or None for any other endpoint (the emulator)."""
    host = (urlsplit(endpoint).hostname or "").lower()
    for cloud in AzureCloud:
        if host == (urlsplit(_sdk_endpoints(cloud)[0]).hostname or "").lower():
            return cloud
    return None


def resolve_cloud(cloud: AzureCloud | None, endpoint: str | None) -> AzureCloud:
    """The cloud named, else the one the endpoint belongs to, else public Azure.
    Raises ValueError when the two disagree (a Government token sent to public ARM, say)."""
    from_endpoint = cloud_of_endpoint(endpoint) if endpoint else None
    if cloud and from_endpoint and cloud != from_endpoint:
        raise ValueError(f"AZMC_AZURE_CLOUD is {cloud} but the endpoint {endpoint!r} is {from_endpoint}'s ARM")
    return cloud or from_endpoint or AzureCloud.PUBLIC


def arm_target(cloud: AzureCloud | None = None, endpoint: str | None = None) -> ArmTarget:
    """ARM URL, token scopes and authority for a cloud; `endpoint` (the emulator, a proxy) replaces only the URL.
    Tokens keep the cloud's ARM audience, so a proxy in front of ARM gets tokens ARM accepts."""
    chosen = resolve_cloud(cloud, endpoint)
    base_url, scopes = _sdk_endpoints(chosen)
    return ArmTarget(chosen, endpoint.rstrip("/") if endpoint else base_url, scopes, _authority(chosen))
