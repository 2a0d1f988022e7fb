"""Control API for what VMs refer to outside the resource groups (emulator/vm_catalog.py): a test adds a
user-assigned identity, an image, or a plan's accepted terms with `POST /_emulator/catalog`
`{"identity": id}`, `{"image": id}` or `{"agreement": {"publisher", "product", "name", "accepted"}}`."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from emulator.backends.registry import Backends
from emulator.errors import ArmError
from emulator.handlers.routing import read_json


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")


def add_routes(app: web.Application, backends: Backends) -> None:
    catalog = backends.state.catalog

    async def add(request: web.Request) -> web.Response:
        body = await read_json(request)
        if not isinstance(body, dict) or len(body) != 1:
            raise ArmError(400, "InvalidCatalogEntry", "Give one of 'identity', 'image' or 'agreement'.")
        (kind, value), = body.items()
        if kind == "identity" and isinstance(value, str) and value:
            return _json(catalog.add_identity(value), 201)
        if kind == "image" and isinstance(value, str) and value:
            catalog.add_image(value)
            return _json({"image": value}, 201)
        if kind == "agreement" and isinstance(value, dict):
            catalog.set_accepted(str(value.get("publisher", "")), str(value.get("product", "")),
                                 str(value.get("name", "")), bool(value.get("accepted", True)))
            return _json(catalog.listing(), 201)
        raise ArmError(400, "InvalidCatalogEntry", f"Unknown or empty catalog entry {kind!r}.")

    async def listing(_: web.Request) -> web.Response:
        return _json(catalog.listing())

    app.router.add_post("/_emulator/catalog", add)
    app.router.add_get("/_emulator/catalog", listing)
