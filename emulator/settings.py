"""Start-up configuration and the live settings the control API may change."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from emulator.limits.profile import PROFILES, checked_overrides
from emulator.seed import SEED_SUBSCRIPTION

LATENCY_PROFILES = ("instant", "realistic")


@dataclass
class LiveSettings:
    """Changed live through `POST /_emulator/settings`; restored by `POST /_emulator/reset`."""

    time_scale: float = 1.0
    # ARM's buckets enforced even under the `none` limits profile (the switch from before profiles).
    throttling: bool = False
    # "none": only ARM's remaining-count headers; "azure": Azure's limits enforced (emulator/README.md, Limits).
    limits: str = "none"
    # Budget name -> {capacity, period_s, refill} replacing Azure's numbers: a test aid (small, fast limits).
    limits_overrides: dict[str, dict[str, float]] = field(default_factory=dict)
    index_lag_s: float = 0.0
    latency_profile: str = "instant"
    # Items per list page before a nextLink (ARM pages at 1000; small values let tests page).
    page_size: int = 1000
    # Emulator seconds a VM's guest boots after creation, start, restart or redeploy: its agent is
    # Not Ready and its probes fail meanwhile (0: Ready at once).
    boot_seconds: float = 0.0

    def update(self, changes: Any) -> None:
        """Apply `changes` all or nothing; ValueError names the first bad one."""
        if not isinstance(changes, dict):
            raise ValueError("settings must be a JSON object of setting -> value")
        checked = {key: _checked(key, value) for key, value in changes.items()}
        for key, value in checked.items():
            setattr(self, key, value)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _checked(key: str, value: Any) -> Any:
    known = [f.name for f in fields(LiveSettings)]
    if key not in known:
        raise ValueError(f"unknown setting {key!r}; known: {', '.join(known)}")
    if key == "latency_profile":
        if value not in LATENCY_PROFILES:
            raise ValueError(f"latency_profile must be one of {', '.join(LATENCY_PROFILES)}")
        return value
    if key == "limits":
        if value not in PROFILES:
            raise ValueError(f"limits must be one of {', '.join(PROFILES)}")
        return value
    if key == "limits_overrides":
        return checked_overrides(value)
    if key == "throttling":
        if not isinstance(value, bool):
            raise ValueError("throttling must be true or false")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{key} must be a number")
    if key == "page_size":
        if value != int(value) or value < 1:
            raise ValueError("page_size must be a whole number >= 1")
        return int(value)
    if not math.isfinite(value) or value < 0:  # time_scale, index_lag_s, boot_seconds
        raise ValueError(f"{key} must be a finite number >= 0")
    return float(value)


@dataclass
class EmulatorConfig:
    host: str = "127.0.0.1"
    port: int = 8910
    subscription: str = SEED_SUBSCRIPTION
    seed: bool = False
    faults_file: Path | None = None
    start: LiveSettings = field(default_factory=LiveSettings)
