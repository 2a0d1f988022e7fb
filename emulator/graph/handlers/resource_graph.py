"""HTTP: `POST /providers/Microsoft.ResourceGraph/resources`, rows from the lagged graph index."""

from __future__ import annotations

from typing import Any

from aiohttp import web

from emulator.arm.responses import json_response
from emulator.arm.routing import Call, Route, route
from emulator.graph.query import engine
from emulator.graph.query.errors import QueryError


def _bad_request(message: str) -> web.Response:
    return json_response(400, {"error": {
        "code": "BadRequest",
        "message": message,
        "details": [{"code": "InvalidQuery", "message": message}],
    }})


async def query(call: Call) -> web.StreamResponse:
    body = call.body
    text = body.get("query")
    if not isinstance(text, str) or not text.strip():
        return _bad_request("The request must contain a non-empty 'query'.")
    graph = call.backends.state.graph
    subscriptions = body.get("subscriptions")
    wanted = {s.lower() for s in subscriptions} if subscriptions else None

    def source(table: str) -> list[dict[str, Any]]:
        rows = graph.rows(table)
        # Rows of no subscription (SpotResources: the same for every tenant) answer every query.
        return rows if wanted is None else [r for r in rows if not r["subscriptionId"]
                                            or r["subscriptionId"].lower() in wanted]

    try:
        answer = engine.execute(text, source, body.get("options") or {}, body.get("facets"),
                                call.query("api-version") or "")
    except QueryError as error:
        return json_response(400, error.error_body())
    except RecursionError:  # a chain of thousands of `and`s or `.a.b.c...` members
        return _bad_request("The query is too complex: its expressions nest too deeply.")
    return json_response(200, answer)


def routes() -> list[Route]:
    return [route("POST", "/providers/Microsoft.ResourceGraph/resources", "resourceGraph", "query", query,
                  azure="Resources")]
