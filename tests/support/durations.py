"""Extreme durations for the bounds tests: huge, zero, negative, sub-second, malformed, not strings."""

import math
from typing import Any

from models.durations import BOUNDS

# Refused by every duration's bounds or format, whatever its bounds.
_ALWAYS_REFUSED: list[Any] = [
    "99999999999d", "3000000d", "P99999999D", "9" * 400 + "d", "1e400", 10**400, 1e300, float("inf"),
    "-5m", "-0.001s", -1, -(10**400), float("-inf"),
    "soon", "", " ", "1h30", "PT", "5 minutes", "1.2.3s", "--5m", "5m-", "m", "nan", float("nan"),
    True, False, None, [], {}, [30], {"seconds": 30},
]  # fmt: skip


def extreme_durations(key: str, *, json_only: bool = False) -> list[Any]:
    """Values the duration `key` of BOUNDS must refuse: the above, just past its maximum and, when its minimum is
    above zero, zero and just under it. `json_only`: only what a JSON document can carry (no inf or nan)."""
    bounds = BOUNDS[key]
    least, most = bounds.minimum.total_seconds(), bounds.maximum.total_seconds()
    values = [*_ALWAYS_REFUSED, most + 1, f"{most + 1:g}s", f"{int(most // 86400) + 1}d"]
    if least > 0:
        values += [0, "0", "0s", least - 0.001, f"{(least - 0.001) * 1000:g}ms", "1ms"]
    if json_only:
        values = [v for v in values if not isinstance(v, float) or math.isfinite(v)]
    return values


def as_text(values: list[Any]) -> list[str]:
    """The values a flag or an environment variable can carry: strings, each once."""
    return list(dict.fromkeys(v if isinstance(v, str) else str(v) for v in values if v is not None))
