"""Payloads of the public signals."""

from pydantic import BaseModel, ConfigDict


class DeleteRequest(BaseModel):
    """Payload of the `delete` signal. Both fields optional: `{}` or no payload at all is a plain delete."""

    model_config = ConfigDict(extra="forbid")

    reason: str = ""
    # Skip the graceful drain (power-off) and force-delete the VM.
    force: bool = False


class PreserveRequest(BaseModel):
    """Payload of the `preserve` signal: `{"reason": ...}`, `{}` or no payload."""

    model_config = ConfigDict(extra="forbid")

    reason: str = ""
