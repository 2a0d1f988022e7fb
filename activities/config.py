"""How the driver reaches Azure: a cloud's ARM through azure-identity, or a loopback emulator with a fixed token."""

import ipaddress
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

from activities.cloud import ArmTarget, AzureCloud, arm_target, resolve_cloud
from models.naming import INSTALLATION_ID_PATTERN
from models.pace import DEFAULT_ARM_PACES

_LOOPBACK_NAMES = {"localhost"}


RETAIL_PRICES = "https://prices.azure.com"


def is_loopback_host(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost: the only hosts we talk plain http to."""
    host = host.strip("[]").lower()
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_loopback_endpoint(endpoint: str | None) -> bool:
    """An endpoint on this machine: the only place the emulator (and its fixed token) may be."""
    return bool(endpoint) and is_loopback_host(urlsplit(endpoint or "").hostname or "")


def check_endpoint(endpoint: str) -> str:
    """`endpoint` if it is an http(s) URL and plain http only to loopback; else ValueError saying so."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"endpoint {endpoint!r} is not an http(s) URL")
    if parts.scheme == "http" and not is_loopback_host(parts.hostname):
        raise ValueError(
            f"endpoint {endpoint!r}: plain http is allowed only for loopback hosts "
            "(127.0.0.0/8, ::1, localhost); use https"
        )
    return endpoint


class AzureConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    subscription_id: str = Field(min_length=1)
    # Which azmc installation these clients act for: the first half of every owner tag, and the only
    # owner whose resources they change (activities/ownership.py). The driver refuses to open without
    # one (no default could tell two installations apart); None only for a tool that reads.
    installation_id: str | None = Field(default=None, pattern=INSTALLATION_ID_PATTERN)
    # None = the cloud's ARM (https://management.azure.com for public Azure); else an ARM endpoint such as the emulator.
    endpoint: str | None = None
    # None = the cloud of the endpoint, else public Azure. Sets the authority and the tokens' ARM audience.
    cloud: AzureCloud | None = None
    # Static bearer token for a loopback emulator only; None = DefaultAzureCredential. Never logged.
    emulator_token: str | None = Field(default=None, repr=False)
    # Temporal owns retries (with our classified delays); SDK retries would sleep inside the activity.
    retry_total: int = Field(default=0, ge=0, le=10)
    # Used only when an answer carries no Retry-After; ARM's default of 30 s would stall activities.
    polling_interval_s: float = Field(default=2.0, gt=0)
    # Per-request socket timeout: a hung connection becomes a Transient error instead of a stuck activity.
    request_timeout_s: float = Field(default=60.0, gt=0)
    # ARM requests a second the whole installation may send, by kind (models/pace.py; activities/arm_pace.py).
    arm_reads_per_s: float = Field(default=DEFAULT_ARM_PACES["reads"], gt=0)
    arm_writes_per_s: float = Field(default=DEFAULT_ARM_PACES["writes"], gt=0)
    arm_deletes_per_s: float = Field(default=DEFAULT_ARM_PACES["deletes"], gt=0)
    # Force-delete a VM that keeps no disk (activities/force_delete.py); False sends forceDeletion=false.
    force_delete_vms: bool = True

    @model_validator(mode="after")
    def _secure_endpoint(self) -> "AzureConfig":
        if self.endpoint is not None:
            check_endpoint(self.endpoint)
        if self.emulator_token is not None and not is_loopback_endpoint(self.endpoint):
            # A fixed token is the emulator's; sent anywhere else it would be a leaked or a wrong credential.
            raise ValueError("the emulator token is only for a loopback emulator endpoint; Azure uses azure-identity")
        resolve_cloud(self.cloud, self.endpoint)  # the named cloud and the endpoint's must agree
        return self

    @property
    def target(self) -> ArmTarget:
        """ARM URL, token scopes and authority the clients and the credential use."""
        return arm_target(self.cloud, self.endpoint)

    @property
    def guest_proxy(self) -> str | None:
        """The emulator stands in for the guests' network too: probes ask its guest endpoint (loopback only)."""
        if self.emulator_token is None or self.endpoint is None:
            return None
        return self.endpoint.rstrip("/") + "/_emulator/guest"

    @property
    def prices_endpoint(self) -> str:
        """The Azure Retail Prices API (public, no token): the emulator's for a loopback emulator."""
        if self.emulator_token is not None and self.endpoint is not None:
            return self.endpoint.rstrip("/")
        return RETAIL_PRICES

    @property
    def plain_http(self) -> bool:
        return self.endpoint is not None and self.endpoint.lower().startswith("http://")
