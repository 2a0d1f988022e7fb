"""Facets: the request's `facets` (Microsoft's `ResourcesFacetQuery` example), each a count of the query's result
rows by one of its columns, before paging: `{expression, options: {sortBy, sortOrder, $top, filter}}`.

Resource Graph's rules followed: the expression must name a column of the result (a dotted path names the
column its projection made, `properties.a.b` -> `properties_a_b`), else the facet is a `FacetError` with
`NoValidColumns` and `InvalidColumnNames`; `filter` (a `where` expression) applies first; rows are sorted by
`sortBy` (default the count) in `sortOrder` (default desc) and cut to `$top` (default 10);
`totalRecords` counts the distinct values, `count` those returned.
"""

from __future__ import annotations

from typing import Any

from .errors import QueryError
from .paging import formatted
from .parser import parse
from .pipeline import Table, run_on

DEFAULT_TOP = 10


def facets(requested: Any, table: Table, result_format: str) -> list[dict[str, Any]]:
    """Each facet's counts, in the answer's result format (`table` or `objectArray`)."""
    if requested is None:
        return []
    if not isinstance(requested, list) or not all(isinstance(f, dict) for f in requested):
        raise QueryError("facets must be a list of {expression, options} objects", "InvalidFacet")
    return [_facet(facet, table, result_format) for facet in requested]


def _facet(facet: dict[str, Any], table: Table, result_format: str) -> dict[str, Any]:
    expression = facet.get("expression")
    if not isinstance(expression, str) or not expression.strip():
        raise QueryError("a facet needs an expression", "InvalidFacet")
    column = next((c for c in (expression, expression.replace(".", "_")) if c in table.columns), None)
    if column is None:
        return {"expression": expression, "resultType": "FacetError", "errors": [
            {"code": "NoValidColumns", "message": "No valid columns in facet expression."},
            {"code": "InvalidColumnNames", "message": f"Invalid column names: [{expression}]."},
        ]}
    options = facet.get("options") or {}
    top = options.get("$top", DEFAULT_TOP)
    if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= 1000:
        raise QueryError(f"facet $top must be between 1 and 1000, got {top!r}", "InvalidFacet")
    order = str(options.get("sortOrder") or "desc").lower()
    if order not in ("asc", "desc"):
        raise QueryError(f"facet sortOrder must be asc or desc, got {order!r}", "InvalidFacet")
    where = f" | where {options['filter']}" if options.get("filter") else ""
    text = (f"Resources{where} | summarize count = count() by {column}"
            f" | order by {options.get('sortBy') or 'count'} {order}")
    grouped = run_on(table, parse(text), lambda _table: [])
    counted = Table([column, "count"], grouped.rows[:top])
    return {"expression": expression, "resultType": "FacetResult", "totalRecords": len(grouped.rows),
            "count": len(counted.rows), "data": formatted(counted, counted.rows, result_format)}
