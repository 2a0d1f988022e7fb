"""Limits profiles and their budgets: `none` (ARM's headers only, unless the legacy `throttling` switch is on)
and `azure` (ARM's buckets, the network provider's windows and the compute provider's policies, at Azure's
documented numbers). `limits_overrides` replaces single budgets: a test aid, so a limit is exhausted and
refilled in seconds rather than minutes."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from emulator.limits.arm import ARM_BUDGETS
from emulator.limits.budget import Budget
from emulator.limits.compute import COMPUTE_BUDGETS
from emulator.limits.network import NETWORK_BUDGETS

PROFILES = ("none", "azure")
AZURE_BUDGETS: dict[str, Budget] = {**ARM_BUDGETS, **NETWORK_BUDGETS, **COMPUTE_BUDGETS}
_FIELDS = ("capacity", "period_s", "refill")


def budgets_with(overrides: dict[str, dict[str, Any]]) -> dict[str, Budget]:
    """Azure's budgets with `overrides` (already checked) applied."""
    return {name: replace(budget, **overrides.get(name, {})) for name, budget in AZURE_BUDGETS.items()}


def checked_overrides(value: Any) -> dict[str, dict[str, Any]]:
    """`{"compute.PutVM.subscription": {"capacity": 3, "period_s": 2, "refill": 1}, ...}`, any fields left out
    keep Azure's value; ValueError names what is wrong."""
    if not isinstance(value, dict):
        raise ValueError("limits_overrides must be an object of budget name -> {capacity, period_s, refill}")
    out: dict[str, dict[str, Any]] = {}
    for name, fields in value.items():
        if name not in AZURE_BUDGETS:
            raise ValueError(f"unknown budget {name!r}; known: {', '.join(AZURE_BUDGETS)}")
        if not isinstance(fields, dict) or not set(fields) <= set(_FIELDS):
            raise ValueError(f"{name} must be an object with some of {', '.join(_FIELDS)}")
        for key, number in fields.items():
            if isinstance(number, bool) or not isinstance(number, int | float) or not math.isfinite(number):
                raise ValueError(f"{name}.{key} must be a number")
        if fields.get("capacity", 1) < 1 or fields.get("capacity", 1) != int(fields.get("capacity", 1)):
            raise ValueError(f"{name}.capacity must be a whole number >= 1")
        if fields.get("period_s", 1) <= 0 or fields.get("refill", 0) < 0:
            raise ValueError(f"{name}: period_s must be > 0 and refill >= 0")
        out[name] = {key: int(v) if key == "capacity" else float(v) for key, v in fields.items()}
    return out
