"""Payloads of the public signals."""

from pydantic import BaseModel, ConfigDict


class DeleteRequest(BaseModel):
    """Payload of the `delete` signal. Both fields optional: `{}` or no payload at all is a plain delete."""

    model_config = ConfigDict(extra="forbid")

    reason: str = ""
    # Skip the graceful drain (power-off) and force-delete the VM.
    force: bool = False


class ReconcileRequest(BaseModel):
    """Payload of the `reconcile` signal: `{}` or none is an operator's (re-check now, and skip a repair wait);
    `{"check_only": true}` is the fleet sweep's: re-check now, but let the repair ladder keep its waits."""

    model_config = ConfigDict(extra="ignore")

    reason: str = ""
    check_only: bool = False


class PreserveRequest(BaseModel):
    """Payload of the `preserve` signal: `{"reason": ...}`, `{}` or no payload."""

    model_config = ConfigDict(extra="forbid")

    reason: str = ""
