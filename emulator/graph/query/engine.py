"""Resource Graph query engine: a documented KQL subset over resource rows, paged like the service.

`execute(query, rows, options)` returns the body of `POST /providers/Microsoft.ResourceGraph/resources`;
anything outside the subset raises `QueryError` (the route answers 400 with `error.error_body()`).

Supported: tables `Resources` and `HealthResources`; `where` (`==` `!=` `=~` `!~` `<` `<=` `>` `>=`,
`in`/`in~`/`!in`/`!in~`, `startswith` `endswith` `contains` `has` `hasprefix` `hassuffix`, their `!` and
`_cs` forms, `and`, `or`, `not()`), `extend`, `project`, `order by`/`sort by`, `limit`/`take`,
`top N by ...`, `summarize count() by ...`, `count`, `join kind=innerunique|inner|leftouter (<query>) on col` (or
`on $left.a == $right.b`; clashing right columns get KQL's `1` suffix); functions isempty, isnotempty,
isnull, isnotnull, bag_keys, array_length, tostring, tolower, toupper, strlen, tolong, toint; the request's
`facets` (facets.py).
"""

from __future__ import annotations

from typing import Any

from emulator.graph.query.errors import QueryError
from emulator.graph.query.facets import facets
from emulator.graph.query.paging import page_request, response_body
from emulator.graph.query.parser import parse
from emulator.graph.query.pipeline import Source, run


def execute(query: str, rows: list[dict[str, Any]] | Source, options: dict[str, Any] | None = None,
            requested_facets: Any = None, api_version: str = "") -> dict[str, Any]:
    """`rows`: the `Resources` rows (no other table has any), or a function from a lower-case table name
    ("resources", "healthresources") to its rows."""
    if not isinstance(query, str) or not query.strip():
        raise QueryError("the query is empty")
    parsed = parse(query)
    source = rows if callable(rows) else (lambda table: rows if table == "resources" else [])
    table = run(parsed, source)
    # Paging needs a stable key: Resource Graph pages only id-carrying results without limit/take.
    pageable = not parsed.has_limit and "id" in table.columns
    request = page_request(query, options, has_limit=parsed.has_limit, api_version=api_version)
    return {**response_body(query, table, request, pageable),
            "facets": facets(requested_facets, table, request.result_format)}
