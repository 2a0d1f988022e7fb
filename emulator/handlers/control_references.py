"""Control API for what a VM may reference (emulator/compute_references.py):

- `GET /_emulator/references`: `{"ids": [...], "features": [...]}`;
- `POST /_emulator/references` `{"id"}`: a disk encryption set, capacity reservation group, proximity placement
  group or availability set that now exists; `DELETE /_emulator/references?id=<id>`: one that no longer does;
- `POST /_emulator/features` `{"feature": "Microsoft.Compute/EncryptionAtHost", "registered": false}`.
"""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from emulator.backends.registry import Backends
from emulator.handlers.routing import read_json


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")


def _invalid(message: str) -> web.Response:
    return _json({"error": {"code": "InvalidReference", "message": message}}, 400)


def add_routes(app: web.Application, backends: Backends) -> None:
    references = backends.state.references

    def listing() -> dict[str, Any]:
        return {"ids": references.ids(), "features": references.features()}

    async def list_references(_: web.Request) -> web.Response:
        return _json(listing())

    async def add_reference(request: web.Request) -> web.Response:
        body = await read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("id"), str):
            return _invalid("give the resource's 'id'")
        try:
            references.add(body["id"])
        except ValueError as exc:
            return _invalid(str(exc))
        return _json(listing(), 201)

    async def remove_reference(request: web.Request) -> web.Response:
        return web.Response(status=204 if references.remove(request.query.get("id", "")) else 404)

    async def set_feature(request: web.Request) -> web.Response:
        body = await read_json(request)
        if not isinstance(body, dict) or not isinstance(body.get("feature"), str) \
                or not isinstance(body.get("registered"), bool):
            return _invalid("give 'feature' (e.g. Microsoft.Compute/EncryptionAtHost) and 'registered' (a boolean)")
        references.register(body["feature"], body["registered"])
        return _json(listing())

    app.router.add_get("/_emulator/references", list_references)
    app.router.add_post("/_emulator/references", add_reference)
    app.router.add_delete("/_emulator/references", remove_reference)
    app.router.add_post("/_emulator/features", set_feature)
