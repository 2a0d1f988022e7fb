"""The compute provider's policies: token buckets per region per minute, one per subscription and, for most
policies, one per resource (Microsoft Learn, "Compute throttling limits", virtual machines table).

Every answer names each bucket it spent from in `x-ms-ratelimit-remaining-resource` as
`Microsoft.Compute/<name>;<count>`, comma separated. The subscription bucket is `<Policy>3Min`, the name
recorded Azure answers carry (`PutVM3Min`, `LowCostGet3Min`, `HighCostGet3Min`, `GetOperation3Min`); a bucket
holds three minutes of its refill. The per-resource bucket is `<Policy>Resource` (no recorded answer shows
its name). Over a budget: 429 `OperationNotAllowed` with a `TooManyRequests` detail naming the bucket, as
"Troubleshooting API throttling errors" shows, and `Retry-After` to the minute's end.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

from emulator.arm.errors import ArmError
from emulator.limits.budget import Bucket, Budget, whole_seconds
from emulator.limits.refusal import Refusal

_MINUTE = 60.0


def _per_minute(refill: int) -> Budget:
    return Budget(capacity=3 * refill, period_s=_MINUTE, refill=refill)  # every bucket holds 3 minutes


# Policy -> (per-resource refill per minute or None, subscription refill per minute).
_POLICIES = {
    "PutVM": (4, 500),
    "UpdateVM": (4, 500),
    "DeleteVM": (4, 500),
    "LowCostGet": (12, 8000),
    "HighCostGet": (None, 300),
    "GetOperation": (15, 5000),
}
COMPUTE_BUDGETS = {
    f"compute.{policy}.{scope}": _per_minute(refill)
    for policy, (resource, subscription) in _POLICIES.items()
    for scope, refill in (("resource", resource), ("subscription", subscription)) if refill is not None
}
# The emulator's compute routes (`<resourceType>.<verb>`) by the policy Azure's table puts them under.
POLICY_OF = {
    "virtualMachines.put": "PutVM",
    "virtualMachines.patch": "UpdateVM",
    "virtualMachines.start": "UpdateVM",
    "virtualMachines.powerOff": "UpdateVM",
    "virtualMachines.restart": "UpdateVM",
    "virtualMachines.redeploy": "UpdateVM",
    "virtualMachines.delete": "DeleteVM",
    "virtualMachines.deallocate": "DeleteVM",
    "virtualMachines.get": "LowCostGet",
    "virtualMachines.instanceView": "LowCostGet",
    "virtualMachines.list": "HighCostGet",
    "operations.get": "GetOperation",
}
_THROTTLED = "The server rejected the request because too many requests have been received for this subscription."


def _iso(wall: float) -> str:
    return datetime.fromtimestamp(wall, UTC).isoformat()


class ComputeLimits:
    def __init__(self, budgets: dict[str, Budget]) -> None:
        self.budgets = budgets
        self._buckets: dict[tuple[str, ...], Bucket] = {}

    def _bucket(self, key: tuple[str, ...], budget_name: str, now: float) -> Bucket:
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(self.budgets[budget_name], now)
        bucket.refill(now)
        return bucket

    def take(self, policy: str, subscription: str, region: str, resource: str | None,
             now: float) -> tuple[str, Refusal | None]:
        """Spend from the policy's buckets (all or none). Returns the header value and a refusal or None."""
        named: list[tuple[str, Bucket]] = []
        if resource is not None and f"compute.{policy}.resource" in self.budgets:
            named.append((f"{policy}Resource",
                          self._bucket((policy, resource), f"compute.{policy}.resource", now)))
        named.append((f"{policy}3Min", self._bucket((policy, subscription.lower(), region),
                                                    f"compute.{policy}.subscription", now)))
        for _, bucket in named:
            bucket.asked += 1
        empty = [(name, bucket) for name, bucket in named if not bucket.has_token()]
        if not empty:
            for _, bucket in named:
                bucket.spend()
        header = ",".join(f"Microsoft.Compute/{name};{bucket.remaining}" for name, bucket in named)
        if not empty:
            return header, None
        wait = whole_seconds(max(bucket.retry_after_s(now) for _, bucket in empty))
        name, bucket = empty[0]
        to_wall = time.time() - now
        detail = {"operationGroup": name, "startTime": _iso(bucket.period_start + to_wall),
                  "endTime": _iso(bucket.period_end + to_wall), "allowedRequestCount": bucket.budget.capacity,
                  "measuredRequestCount": bucket.asked}
        return header, Refusal(ArmError(429, "OperationNotAllowed", _THROTTLED, details=[
            {"code": "TooManyRequests", "target": name, "message": json.dumps(detail)}]), wait)

    def clear(self) -> None:
        self._buckets.clear()
