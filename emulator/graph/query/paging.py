"""Request options ($top, $skip, $skipToken, resultFormat) and the QueryResponse body.

Resource Graph rules followed here:
- at most 1000 rows per answer (the default page), `$top` from 1 to 1000;
- `totalRecords` counts every row the query yields, `count` the rows in this answer;
- a query with `limit`/`take`, or whose rows carry no `id` column, cannot be paged: it never gets
  a `$skipToken` and says `resultTruncated: "true"` when rows were cut off; `limit`/`take` queries
  also ignore `$skip`;
- a `$skipToken` is only valid for the query that produced it.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass
from typing import Any

from .errors import QueryError
from .evaluator import infer_type
from .pipeline import Table
from .schema import RESOURCE_COLUMN_TYPES

MAX_PAGE_SIZE = 1000
RESULT_FORMATS = ("objectArray", "table")
# Resource Graph's answer to a token it cannot read (a recorded answer: azure-sdk-for-python's
# test_resources_query_options recording, detail code CouldNotDecodeSkipToken).
_UNDECODABLE = "invalid $skipToken: Skip token could not be decoded."
# The result format when the request names none: `table` until api-version 2021-03-01 made it `objectArray`.
OBJECT_ARRAY_SINCE = "2021-03-01"


@dataclass(frozen=True)
class PageRequest:
    page_size: int
    offset: int
    result_format: str


def query_fingerprint(query: str) -> str:
    return hashlib.sha256(query.encode()).hexdigest()[:16]


def encode_skip_token(query: str, offset: int, page_size: int) -> str:
    payload = {"v": 1, "q": query_fingerprint(query), "o": offset, "n": page_size}
    return base64.b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode()


def _decode_skip_token(token: str, query: str) -> tuple[int, int]:
    try:
        payload = json.loads(base64.b64decode(token.encode(), validate=True))
        fingerprint, offset, page_size = payload["q"], payload["o"], payload["n"]
    except (ValueError, TypeError, KeyError) as exc:
        raise QueryError(_UNDECODABLE, "CouldNotDecodeSkipToken") from exc
    valid = isinstance(offset, int) and isinstance(page_size, int) and offset >= 0 and page_size > 0
    if not valid:
        raise QueryError(_UNDECODABLE, "CouldNotDecodeSkipToken")
    if fingerprint != query_fingerprint(query):
        raise QueryError("invalid $skipToken: it belongs to a different query", "InvalidSkipToken")
    return offset, page_size


def _int_option(options: dict[str, Any], key: str) -> int | None:
    value = options.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise QueryError(f"option {key} must be an integer, got {value!r}", "InvalidOption")
    return value


def page_request(query: str, options: dict[str, Any] | None, has_limit: bool, api_version: str = "") -> PageRequest:
    options = options or {}
    top = _int_option(options, "$top")
    skip = _int_option(options, "$skip")
    if top is not None and not 1 <= top <= MAX_PAGE_SIZE:
        raise QueryError(f"$top must be between 1 and {MAX_PAGE_SIZE}, got {top}", "InvalidOption")
    if skip is not None and skip < 0:
        raise QueryError(f"$skip must not be negative, got {skip}", "InvalidOption")
    default = "objectArray" if not api_version or api_version >= OBJECT_ARRAY_SINCE else "table"
    result_format = options.get("resultFormat") or default
    matched = [name for name in RESULT_FORMATS if name.lower() == str(result_format).lower()]
    if not matched:
        raise QueryError(f"unsupported resultFormat '{result_format}'", "InvalidOption")
    token = options.get("$skipToken")
    offset, page_size = skip or 0, top or MAX_PAGE_SIZE
    if token:
        offset, token_page_size = _decode_skip_token(str(token), query)
        page_size = top or token_page_size
    if has_limit:
        offset = 0  # `limit`/`take` queries ignore $skip (documented) and have no pages
    return PageRequest(page_size=page_size, offset=offset, result_format=matched[0])


def response_body(query: str, table: Table, request: PageRequest, pageable: bool) -> dict[str, Any]:
    total = len(table.rows)
    page = table.rows[request.offset : request.offset + request.page_size]
    more = request.offset + len(page) < total
    body: dict[str, Any] = {
        "totalRecords": total,
        "count": len(page),
        "resultTruncated": "true" if more and not pageable else "false",
    }
    if more and pageable:
        body["$skipToken"] = encode_skip_token(query, request.offset + len(page), request.page_size)
    body["data"] = formatted(table, page, request.result_format)
    body["facets"] = []
    return body


def formatted(table: Table, page: list[dict[str, Any]], result_format: str) -> Any:
    if result_format == "objectArray":
        return [{name: row.get(name) for name in table.columns} for row in page]
    columns = [
        {"name": name, "type": RESOURCE_COLUMN_TYPES.get(name) or infer_type(row.get(name) for row in table.rows)}
        for name in table.columns
    ]
    return {"columns": columns, "rows": [[row.get(name) for name in table.columns] for row in page]}
