"""HTTP: operation status (Azure-AsyncOperation) and operation results (Location)."""

from __future__ import annotations

from aiohttp import web

from emulator.arm.errors import ArmError
from emulator.arm.operations import Operation
from emulator.arm.responses import json_response, operation_links, retry_headers
from emulator.arm.routing import Call, Route, route

_BASE = "/subscriptions/{sub}/providers/{namespace}/locations/{location}"


def _operation(call: Call) -> Operation:
    op = call.backends.state.operations.get(call.params["id"])
    if op is None:
        raise ArmError(404, "NotFound", f"The operation '{call.params['id']}' could not be found.")
    return op


async def status(call: Call) -> web.StreamResponse:
    op = _operation(call)
    headers = {} if op.done else retry_headers(call.backends.state.operations.poll_hint_s(op))
    return json_response(200, op.status_body(), headers)


async def result(call: Call) -> web.StreamResponse:
    op = _operation(call)
    if not op.done:
        headers = {"Location": operation_links(call, op)["Location"]}
        headers.update(retry_headers(call.backends.state.operations.poll_hint_s(op)))
        return json_response(202, None, headers)
    if op.error is not None:
        return json_response(op.error.status, op.error.body())
    return json_response(204)


def routes() -> list[Route]:
    return [
        route("GET", _BASE + "/operations/{id}", "operations", "get", status),
        route("GET", _BASE + "/operationResults/{id}", "operations", "get", result),
    ]
