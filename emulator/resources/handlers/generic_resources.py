"""HTTP: ARM's own listing of a resource group's resources (`Resources_ListByResourceGroup`), with `$filter`.

Answered by ARM from its own state, not the lagging Resource Graph: a resource is listed from its PUT on
until it is deleted. The filters modelled are the ones ARM documents for it:
  tagName eq '<name>' [and tagValue eq '<value>']   (tag names case-insensitive, as ARM's are)
  resourceType eq '<namespace/type>'
  substringof('<text>', name)                      (anywhere in the name, case-insensitive)
ARM returns no tags when it filters by tag name AND value; anything else it does not support is a 400.
"""

from __future__ import annotations

import re
from typing import Any

from aiohttp import web

from emulator.arm.common import require_group
from emulator.arm.errors import ArmError
from emulator.arm.responses import list_response
from emulator.arm.routing import RG, Call, Route, route
from emulator.arm.store import Resource

_TAG = re.compile(r"^\s*tagName\s+eq\s+'(?P<name>[^']*)'(\s+and\s+tagValue\s+eq\s+'(?P<value>[^']*)')?\s*$",
                  re.IGNORECASE)
_TYPE = re.compile(r"^\s*resourceType\s+eq\s+'(?P<type>[^']+)'\s*$", re.IGNORECASE)
_NAME = re.compile(r"^\s*substringof\(\s*'(?P<text>(?:[^']|'')*)'\s*,\s*name\s*\)\s*$", re.IGNORECASE)


def _bad_filter(text: str) -> ArmError:
    return ArmError(400, "InvalidFilterInQueryString", f"Invalid $filter '{text}' specified in the query string.")


def _tag(resource: Resource, name: str) -> str | None:
    for key, value in (resource.body.get("tags") or {}).items():
        if key.lower() == name.lower():
            return str(value)
    return None


def _item(resource: Resource, with_tags: bool) -> dict[str, Any]:
    body = resource.body
    item: dict[str, Any] = {"id": body["id"], "name": body["name"], "type": body["type"],
                            "location": body.get("location", "")}
    for key in ("kind", "sku", "zones", "managedBy"):
        if body.get(key) is not None:
            item[key] = body[key]
    if with_tags and body.get("tags") is not None:
        item["tags"] = dict(body["tags"])
    return item


def matching(resources: list[Resource], text: str | None) -> tuple[list[Resource], bool]:
    """The resources `$filter` selects, and whether their items carry tags."""
    if not text:
        return resources, True
    tag = _TAG.match(text)
    if tag:
        name, value = tag.group("name"), tag.group("value")
        hits = [r for r in resources if _tag(r, name) is not None and (value is None or _tag(r, name) == value)]
        return hits, value is None
    part = _NAME.match(text)
    if part:
        wanted = part.group("text").replace("''", "'").lower()
        return [r for r in resources if wanted in r.name.lower()], True
    kind = _TYPE.match(text)
    if kind:
        return [r for r in resources if r.type.lower() == kind.group("type").lower()], True
    raise _bad_filter(text)


async def list_in_group(call: Call) -> web.StreamResponse:
    state = call.backends.state
    require_group(state, call.scope)
    # Top-level resources only (a subnet is part of its virtual network, not listed on its own). Filtered
    # before sorted: a machine's tag filter matches a handful of a busy group's thousands; only the page asked
    # for is rendered.
    resources = [r for r in state.store.in_group(call.params["sub"], call.params["rg"]) if r.type.count("/") == 1]
    hits, with_tags = matching(resources, call.query("$filter"))
    hits.sort(key=lambda resource: str(resource.body["id"]).lower())
    return list_response(call, hits, lambda resource: _item(resource, with_tags))


def routes() -> list[Route]:
    return [route("GET", RG + "/resources", "resources", "list", list_in_group,
                  azure="Resources_ListByResourceGroup")]
