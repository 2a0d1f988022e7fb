"""ARM's per-subscription token buckets (reads 250/25 s, writes 200/10 s, deletes 200/10 s).

Buckets run on wall time, not the time scale: they model a real rate limit clients must respect.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

_LIMITS = {"reads": (250.0, 25.0), "writes": (200.0, 10.0), "deletes": (200.0, 10.0)}


def category(method: str) -> str:
    if method in ("GET", "HEAD"):
        return "reads"
    if method == "DELETE":
        return "deletes"
    return "writes"


@dataclass
class _Bucket:
    capacity: float
    refill_per_s: float
    tokens: float
    updated: float

    def refill(self, now: float) -> None:
        self.tokens = min(self.capacity, self.tokens + (now - self.updated) * self.refill_per_s)
        self.updated = now


class Throttler:
    def __init__(self) -> None:
        self._buckets: dict[tuple[str, str], _Bucket] = {}

    def _bucket(self, subscription: str, kind: str, now: float) -> _Bucket:
        key = (subscription.lower(), kind)
        bucket = self._buckets.get(key)
        if bucket is None:
            capacity, rate = _LIMITS[kind]
            bucket = self._buckets[key] = _Bucket(capacity, rate, capacity, now)
        bucket.refill(now)
        return bucket

    def take(self, subscription: str, method: str, enforce: bool) -> tuple[str, int, float | None]:
        """Spend one token. Returns (category, remaining, retry_after_s or None when allowed)."""
        kind = category(method)
        bucket = self._bucket(subscription, kind, time.monotonic())
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return kind, int(bucket.tokens), None
        if not enforce:
            return kind, 0, None
        wait = (1.0 - bucket.tokens) / bucket.refill_per_s
        return kind, 0, max(1.0, math.ceil(wait))

    def clear(self) -> None:
        self._buckets.clear()
