"""What a provider's limit answers instead of the request: Azure's error and its Retry-After."""

from __future__ import annotations

from dataclasses import dataclass

from emulator.arm.errors import ArmError


@dataclass(frozen=True)
class Refusal:
    error: ArmError
    retry_after_s: int
