"""The record of each accepted VM DELETE (`GET /_emulator/requests`, `vm_deletions`), kept by the state."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class VmDeletion:
    """One accepted VM DELETE: what its query said and what the emulator did (tests assert on this)."""

    id: str
    force_deletion: str | None  # the query's value as sent, None when absent
    forced: bool
    azure_seconds: float

    def record(self) -> dict[str, Any]:
        return {"id": self.id, "forceDeletion": self.force_deletion, "forced": self.forced,
                "azureSeconds": self.azure_seconds}
