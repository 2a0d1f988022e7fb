"""The network provider's own limits, per subscription: writes and deletes together 1,000, reads 10,000, in
any 5 minutes (Microsoft Learn, "Request limits and throttling", "Network throttling").

Over a limit NRP answers 429 `RetryableError` with a `RetryableErrorDueToTooManyCallsToThisOperation` detail
naming its operation and when the call can be retried, and `Retry-After` (as azure-sdk-for-net issue 45317
shows). It sends no remaining-count header, so neither does the emulator.
"""

from __future__ import annotations

from emulator.arm.errors import ArmError
from emulator.limits.budget import Budget, Window, whole_seconds
from emulator.limits.refusal import Refusal

NETWORK_BUDGETS = {
    "network.writes": Budget(capacity=1000, period_s=300.0),  # PUT, PATCH and DELETE together
    "network.reads": Budget(capacity=10000, period_s=300.0),
}
# NRP names its operations like "PutNicOperation" in the refusal.
_NOUNS = {"networkInterfaces": "Nic", "virtualNetworks": "VirtualNetwork", "subnets": "Subnet",
          "operations": "OperationStatus"}
_VERBS = {"GET": "Get", "HEAD": "Get", "PUT": "Put", "PATCH": "Patch", "POST": "Post", "DELETE": "Delete"}


def _span(seconds: float) -> str:
    minutes = seconds / 60
    return f"{minutes:g} minutes" if minutes == int(minutes) else f"{seconds:g} seconds"


class NetworkLimits:
    def __init__(self, budgets: dict[str, Budget]) -> None:
        self.budgets = budgets
        self._windows: dict[tuple[str, str], Window] = {}

    def take(self, subscription: str, method: str, resource_type: str, now: float) -> Refusal | None:
        kind = "reads" if method in ("GET", "HEAD") else "writes"
        key = (subscription.lower(), kind)
        window = self._windows.get(key)
        if window is None:
            window = self._windows[key] = Window(self.budgets[f"network.{kind}"])
        window.expire(now)
        if window.has_token():
            window.spend(now)
            return None
        wait = whole_seconds(window.retry_after_s(now))
        operation = f"{_VERBS.get(method, 'Put')}{_NOUNS.get(resource_type, resource_type)}Operation"
        return Refusal(ArmError(429, "RetryableError", "A retryable error occurred.", details=[{
            "code": "RetryableErrorDueToTooManyCallsToThisOperation",
            "message": f"Operation {operation} exceeded throttling limit of {window.budget.capacity} calls within "
                       f"last {_span(window.budget.period_s)}. The number of calls exceeds Microsoft.Network "
                       f"throttling limit. The call can be retried in {wait} seconds.",
        }]), wait)

    def clear(self) -> None:
        self._windows.clear()
