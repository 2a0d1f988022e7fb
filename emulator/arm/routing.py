"""Case-insensitive ARM path routing (ARM paths ignore case; aiohttp's router does not).

Routes match the path as sent, still percent-encoded, and each name is decoded after: a name is one segment, so
an escaped '/' (`%2F`) stays inside its name instead of making the path longer (as ARM reads paths)."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from aiohttp import web

from emulator.arm import errors
from emulator.arm.arm_ids import Scope
from emulator.arm.rules import json_body
from emulator.registry import Backends

RG = "/subscriptions/{sub}/resourceGroups/{rg}"
NETWORK = RG + "/providers/Microsoft.Network"
COMPUTE = RG + "/providers/Microsoft.Compute"


@dataclass
class Call:
    request: web.Request
    params: dict[str, str]
    backends: Backends
    body: dict[str, Any]

    @property
    def scope(self) -> Scope:
        return Scope(self.params["sub"], self.params["rg"])

    def query(self, name: str) -> str | None:
        for key, value in self.request.query.items():
            if key.lower() == name.lower():
                return value
        return None


Handler = Callable[[Call], Awaitable[web.StreamResponse]]


@dataclass
class Route:
    method: str
    pattern: re.Pattern[str]
    resource_type: str
    verb: str
    handler: Handler
    template: str = ""  # e.g. "/subscriptions/{sub}/resourceGroups/{rg}"
    # Azure's operation id ("VirtualMachines_CreateOrUpdate"): what Microsoft's REST examples are filed under.
    # Empty for ARM's own generic endpoints (long-running operation status), which have no examples.
    azure: str = ""

    @property
    def operation(self) -> str:
        return f"{self.resource_type}.{self.verb}"


def route(method: str, template: str, resource_type: str, verb: str, handler: Handler, azure: str = "") -> Route:
    regex = ""
    for part in re.split(r"(\{\w+\})", template):
        if part.startswith("{"):
            regex += f"(?P<{part[1:-1]}>[^/]+)"
        else:
            regex += re.escape(part)
    return Route(method, re.compile(f"^{regex}/?$", re.IGNORECASE), resource_type, verb, handler, template, azure)


class Router:
    def __init__(self, routes: list[Route]) -> None:
        self._routes = routes

    @property
    def routes(self) -> list[Route]:
        return list(self._routes)

    def match(self, method: str, raw_path: str) -> tuple[Route, dict[str, str]] | None:
        """The route of `raw_path` (percent-encoded, as sent) and its parameters, decoded."""
        lookup = "GET" if method == "HEAD" else method
        for candidate in self._routes:
            if candidate.method != lookup:
                continue
            found = candidate.pattern.match(raw_path)
            if found:
                return candidate, {key: unquote(value) for key, value in found.groupdict().items()}
        return None

    def path_known(self, raw_path: str) -> bool:
        return any(r.pattern.match(raw_path) for r in self._routes)


async def read_body(request: web.Request) -> dict[str, Any]:
    """The JSON object a request carries ({} for none), under ARM's limits (see `emulator/arm/rules/json_body.py`)."""
    parsed = await read_json(request)
    if parsed is None:
        return {}
    if not isinstance(parsed, dict):
        raise errors.ArmError(400, "InvalidRequestContent", "The request content must be a JSON object.")
    return parsed


async def read_json(request: web.Request) -> Any:
    """Any JSON value a request carries (None for no body), under ARM's size, depth and number limits."""
    if not request.can_read_body:
        return None
    if (request.content_length or 0) > json_body.MAX_BODY_BYTES:
        raise json_body.too_large()
    try:
        raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise json_body.too_large() from None
    return json_body.parse(raw) if raw.strip() else None
