"""The two shapes Azure's request limits take: a token bucket refilled in whole periods, and a sliding window.

Both are O(1) per request (the window's expiry is amortised O(1)): the emulator must stay cheap under a
1,000-machine bench. Times are wall-clock seconds (`time.monotonic()`), never the emulator's time scale.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class Budget:
    """`capacity` requests; a bucket gets `refill` tokens back at the end of every `period_s`, a window
    (refill 0) forgets each request `period_s` after it was made."""

    capacity: int
    period_s: float
    refill: float = 0.0


class Bucket:
    """Azure's token bucket: full at first, one token per request, `refill` tokens at each period's end
    (Compute adds its tokens once a minute; ARM once a second). A refused request spends nothing."""

    __slots__ = ("asked", "budget", "period_start", "tokens")

    def __init__(self, budget: Budget, now: float) -> None:
        self.budget = budget
        self.tokens = float(budget.capacity)
        self.period_start = now
        self.asked = 0  # requests this period, refused ones too (Compute reports it as measuredRequestCount)

    def refill(self, now: float) -> None:
        periods = math.floor((now - self.period_start) / self.budget.period_s)
        if periods > 0:
            self.tokens = min(float(self.budget.capacity), self.tokens + periods * self.budget.refill)
            self.period_start += periods * self.budget.period_s
            self.asked = 0

    def has_token(self) -> bool:
        return self.tokens >= 1.0

    def spend(self) -> None:
        self.tokens -= 1.0

    @property
    def remaining(self) -> int:
        return int(self.tokens)

    def retry_after_s(self, now: float) -> float:
        """Seconds until the period end that brings a whole token back."""
        missing = 1.0 - self.tokens
        periods = max(1, math.ceil(missing / self.budget.refill)) if self.budget.refill > 0 else 1
        return self.period_start + periods * self.budget.period_s - now

    @property
    def period_end(self) -> float:
        return self.period_start + self.budget.period_s


class Window:
    """A sliding window: at most `capacity` requests in any `period_s` (the network provider counts its
    writes "within last 5 minutes"). Refused requests are not counted."""

    __slots__ = ("budget", "times")

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.times: deque[float] = deque()

    def expire(self, now: float) -> None:
        horizon = now - self.budget.period_s
        while self.times and self.times[0] <= horizon:
            self.times.popleft()

    def has_token(self) -> bool:
        return len(self.times) < self.budget.capacity

    def spend(self, now: float) -> None:
        self.times.append(now)

    @property
    def remaining(self) -> int:
        return self.budget.capacity - len(self.times)

    def retry_after_s(self, now: float) -> float:
        """Seconds until the oldest counted request leaves the window."""
        return self.times[0] + self.budget.period_s - now if self.times else 0.0


def whole_seconds(seconds: float) -> int:
    """`Retry-After` as Azure sends it: whole seconds, at least 1."""
    return max(1, math.ceil(seconds - 1e-9))
