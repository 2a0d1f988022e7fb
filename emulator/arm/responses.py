"""Rendering backend outcomes as ARM responses: LRO headers, polling hints, list pages."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlencode

from aiohttp import web

from emulator.arm.errors import ArmError
from emulator.arm.operations import Operation, OperationRegistry
from emulator.arm.outcome import Outcome
from emulator.arm.routing import Call

T = TypeVar("T")


def json_response(status: int, body: Any = None, headers: dict[str, str] | None = None) -> web.Response:
    if body is None:
        return web.Response(status=status, headers=headers)
    return web.Response(status=status, body=json.dumps(body).encode(), headers=headers,
                        content_type="application/json")


def error_response(error: ArmError, headers: dict[str, str] | None = None) -> web.Response:
    return json_response(error.status, error.body(), headers)


def retry_headers(seconds: float) -> dict[str, str]:
    """`retry-after-ms` always; `Retry-After` (whole seconds, as Azure sends it) only when the hint is a
    whole number of seconds: the SDK prefers it over the ms header, so a rounded value would make it
    poll off the hint (and `Retry-After: 0` reads as absent: its 30 s default)."""
    headers = {"retry-after-ms": str(max(1, round(seconds * 1000)))}
    if seconds >= 1 and abs(seconds - round(seconds)) < 1e-6:
        headers["Retry-After"] = str(round(seconds))
    return headers


def operation_links(call: Call, op: Operation) -> dict[str, str]:
    origin = f"{call.request.scheme}://{call.request.host}"
    api = call.query("api-version") or "2024-01-01"
    query = urlencode({"api-version": api})
    return {
        "Azure-AsyncOperation": f"{origin}{op.path('operations')}?{query}",
        "Location": f"{origin}{op.path('operationResults')}?{query}",
    }


def outcome_response(call: Call, outcome: Outcome) -> web.Response:
    headers: dict[str, str] = {}
    if outcome.operation is not None:
        ops: OperationRegistry = call.backends.state.operations
        headers.update(operation_links(call, outcome.operation))
        headers.update(retry_headers(ops.poll_hint_s(outcome.operation)))
    return json_response(outcome.status, outcome.body, headers)


def list_response(call: Call, items: Sequence[T], render: Callable[[T], dict[str, Any]] | None = None) -> web.Response:
    """One page of `{"value": [...], "nextLink"}`; the skip token is the offset. With `render`, `items` are the
    resources in their order and only the page's are rendered: a list of a 10,000-machine group renders a page
    a request, not the whole group each time (which made the emulator, not Azure's budgets, bound the fleet)."""
    size = call.backends.state.settings.page_size
    token = call.query("$skiptoken")
    start = int(token) if token and token.isdigit() else 0
    chosen = items[start : start + size]
    page = [render(item) for item in chosen] if render is not None else list(chosen)
    body: dict[str, Any] = {"value": page}
    if start + size < len(items):
        query = {k: v for k, v in call.request.query.items() if k.lower() != "$skiptoken"}
        query["$skiptoken"] = str(start + size)
        body["nextLink"] = f"{call.request.scheme}://{call.request.host}{call.request.path}?{urlencode(query)}"
    return json_response(200, body)
