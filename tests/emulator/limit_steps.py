"""What the request-limit tests share: the `azure` profile with a few small budgets, and the answers an SDK
client got (its `raw_response_hook` sees every attempt, retries included)."""

from __future__ import annotations

import time
from typing import Any

from azure.core.exceptions import HttpResponseError
from azure.core.pipeline import PipelineResponse

from tests.support.emulator import EmulatorHandle


def azure_limits(emulator: EmulatorHandle, **budgets: dict[str, float]) -> None:
    """`--limits azure`, with `budgets` (`compute_PutVM_resource={"capacity": 2}` names
    `compute.PutVM.resource`) in place of Azure's numbers."""
    emulator.settings(limits="azure", limits_overrides={name.replace("_", "."): b for name, b in budgets.items()})


class Answers:
    """A `raw_response_hook`: every (method, status, headers) the client received, in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int, dict[str, str]]] = []

    def __call__(self, response: PipelineResponse) -> None:
        answer = response.http_response
        self.seen.append((answer.request.method, answer.status_code,
                          {k.lower(): v for k, v in answer.headers.items()}))

    def header(self, method: str, name: str = "x-ms-ratelimit-remaining-resource") -> str:
        """`name` of the latest answer to a `method` request."""
        return next(h[name] for m, _, h in reversed(self.seen) if m == method)

    def statuses(self, method: str) -> list[int]:
        return [status for m, status, _ in self.seen if m == method]


def throttled(caught: HttpResponseError) -> tuple[str, int, list[Any]]:
    """(code, Retry-After, details) of a 429 the SDK raised."""
    assert caught.status_code == 429
    assert caught.error is not None
    return caught.error.code, int(caught.response.headers["Retry-After"]), list(caught.error.details or [])


def wait_out(retry_after_s: int) -> None:
    """Wait what the 429 asked for: a limit runs on wall time."""
    time.sleep(retry_after_s)
