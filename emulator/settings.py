"""Start-up configuration and the live settings the control API may change."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from emulator.seed import SEED_SUBSCRIPTION

LATENCY_PROFILES = ("instant", "realistic")


@dataclass
class LiveSettings:
    """Changed live through `POST /_emulator/settings`; restored by `POST /_emulator/reset`."""

    time_scale: float = 1.0
    throttling: bool = False
    index_lag_s: float = 0.0
    latency_profile: str = "instant"
    # Items per list page before a nextLink (ARM pages at 1000; small values let tests page).
    page_size: int = 1000

    def update(self, changes: dict[str, Any]) -> None:
        known = {f.name: f.type for f in fields(self)}
        for key, value in changes.items():
            if key not in known:
                raise ValueError(f"unknown setting {key!r}; known: {', '.join(known)}")
            if key == "latency_profile" and value not in LATENCY_PROFILES:
                raise ValueError(f"latency_profile must be one of {', '.join(LATENCY_PROFILES)}")
            if key == "throttling":
                value = bool(value)
            elif key == "page_size":
                value = int(value)
                if value < 1:
                    raise ValueError("page_size must be >= 1")
            elif key in ("time_scale", "index_lag_s"):
                value = float(value)
                if value < 0:
                    raise ValueError(f"{key} must be >= 0")
            setattr(self, key, value)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class EmulatorConfig:
    host: str = "127.0.0.1"
    port: int = 8910
    subscription: str = SEED_SUBSCRIPTION
    seed: bool = False
    faults_file: Path | None = None
    start: LiveSettings = field(default_factory=LiveSettings)
