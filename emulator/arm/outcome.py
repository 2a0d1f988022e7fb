"""What a backend call produced, for the HTTP layer to render."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from emulator.arm.operations import Operation


@dataclass
class Outcome:
    status: int
    body: dict[str, Any] | None = None
    operation: Operation | None = None
