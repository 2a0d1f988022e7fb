"""How the driver reaches Azure: real Azure (DefaultAzureCredential) or a loopback emulator (static token)."""

import ipaddress
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, model_validator

from models.naming import INSTALLATION_ID_PATTERN

_LOOPBACK_NAMES = {"localhost"}


def is_loopback_host(host: str) -> bool:
    """True for 127.0.0.0/8, ::1 and localhost: the only hosts we talk plain http to."""
    host = host.strip("[]").lower()
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class AzureConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    subscription_id: str = Field(min_length=1)
    # Which azmc installation this driver acts for: the first half of every owner tag it writes, and
    # the only owner whose resources it changes (activities/ownership.py). Required: no default could
    # tell two installations apart.
    installation_id: str = Field(pattern=INSTALLATION_ID_PATTERN)
    # None = public Azure (https://management.azure.com); otherwise an ARM endpoint such as the emulator.
    endpoint: str | None = None
    # Static bearer token for the emulator; None = DefaultAzureCredential. Never logged.
    emulator_token: str | None = Field(default=None, repr=False)
    # Temporal owns retries (with our classified delays); SDK retries would sleep inside the activity.
    retry_total: int = Field(default=0, ge=0, le=10)
    # Used only when an answer carries no Retry-After; ARM's default of 30 s would stall activities.
    polling_interval_s: float = Field(default=2.0, gt=0)
    # Per-request socket timeout: a hung connection becomes a Transient error instead of a stuck activity.
    request_timeout_s: float = Field(default=60.0, gt=0)

    @model_validator(mode="after")
    def _secure_endpoint(self) -> "AzureConfig":
        if self.endpoint is None:
            return self
        parts = urlsplit(self.endpoint)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"endpoint {self.endpoint!r} is not an http(s) URL")
        if parts.scheme == "http" and not is_loopback_host(parts.hostname):
            raise ValueError(
                f"endpoint {self.endpoint!r}: plain http is allowed only for loopback hosts "
                "(127.0.0.0/8, ::1, localhost); use https"
            )
        return self

    @property
    def plain_http(self) -> bool:
        return self.endpoint is not None and self.endpoint.lower().startswith("http://")
