"""ARM's own buckets, per subscription: reads 250 / 25 per s, writes 200 / 10 per s, deletes 200 / 10 per s
(Microsoft Learn, "Understand how Azure Resource Manager throttles requests", the 2024 regional token bucket).

ARM cannot tell the emulator's principals apart (it accepts any bearer token), so the buckets are per
subscription only: one principal per installation, as azmc runs.
"""

from __future__ import annotations

from emulator.limits.budget import Bucket, Budget, whole_seconds

ARM_BUDGETS = {
    "arm.reads": Budget(capacity=250, period_s=1.0, refill=25),
    "arm.writes": Budget(capacity=200, period_s=1.0, refill=10),
    "arm.deletes": Budget(capacity=200, period_s=1.0, refill=10),
}


def category(method: str) -> str:
    if method in ("GET", "HEAD"):
        return "reads"
    if method == "DELETE":
        return "deletes"
    return "writes"


class ArmLimits:
    def __init__(self, budgets: dict[str, Budget]) -> None:
        self.budgets = budgets
        self._buckets: dict[tuple[str, str], Bucket] = {}

    def take(self, subscription: str, method: str, now: float, enforce: bool) -> tuple[str, int, int | None]:
        """Spend one token. Returns (category, remaining, Retry-After seconds or None when allowed); unenforced,
        an empty bucket still lets the request through (the headers count down either way)."""
        kind = category(method)
        key = (subscription.lower(), kind)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(self.budgets[f"arm.{kind}"], now)
        bucket.refill(now)
        if bucket.has_token():
            bucket.spend()
            return kind, bucket.remaining, None
        if not enforce:
            return kind, 0, None
        return kind, 0, whole_seconds(bucket.retry_after_s(now))

    def clear(self) -> None:
        self._buckets.clear()
