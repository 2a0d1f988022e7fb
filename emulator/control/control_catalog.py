"""Control API for what VMs refer to outside the resource groups (emulator/compute/vm_catalog.py): a test adds a
user-assigned identity, an image, a plan's accepted terms or a Compute resource a VM may name, or (un)registers a
subscription feature, with `POST /_emulator/catalog` `{"identity": id}`, `{"image": id}`,
`{"agreement": {"publisher", "product", "name", "accepted"}}`, `{"reference": id}` (a disk encryption set,
capacity reservation group, proximity placement group or availability set) or
`{"feature": {"name": "Microsoft.Compute/EncryptionAtHost", "registered": false}}`; `GET` lists them all."""

from __future__ import annotations

import json
from typing import Any

from aiohttp import web

from emulator.arm.errors import ArmError
from emulator.arm.routing import read_json
from emulator.registry import Backends


def _json(body: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type="application/json")


def add_routes(app: web.Application, backends: Backends) -> None:
    catalog = backends.state.catalog

    async def add(request: web.Request) -> web.Response:
        body = await read_json(request)
        if not isinstance(body, dict) or len(body) != 1:
            raise ArmError(400, "InvalidCatalogEntry",
                           "Give one of 'identity', 'image', 'agreement', 'reference' or 'feature'.")
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
        if kind == "reference" and isinstance(value, str):
            try:
                catalog.add_reference(value)
            except ValueError as exc:
                raise ArmError(400, "InvalidCatalogEntry", str(exc)) from None
            return _json(catalog.listing(), 201)
        if kind == "feature" and isinstance(value, dict) and isinstance(value.get("name"), str) \
                and isinstance(value.get("registered", True), bool):
            catalog.register(value["name"], value.get("registered", True))
            return _json(catalog.listing(), 201)
        raise ArmError(400, "InvalidCatalogEntry", f"Unknown or empty catalog entry {kind!r}.")

    async def listing(_: web.Request) -> web.Response:
        return _json(catalog.listing())

    app.router.add_post("/_emulator/catalog", add)
    app.router.add_get("/_emulator/catalog", listing)
