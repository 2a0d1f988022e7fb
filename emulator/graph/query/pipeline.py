"""Runs a parsed query's tabular operators over the rows, tracking the columns each step yields."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cmp_to_key
from typing import Any

from .errors import QueryError
from .evaluator import Row, check_expression, check_predicate, evaluate
from .schema import RESOURCE_COLUMNS
from .syntax import (
    CountRows,
    Extend,
    Join,
    Limit,
    NamedExpr,
    Operator,
    OrderBy,
    Project,
    Query,
    SortKey,
    Summarize,
    Top,
    Where,
)
from .values import sort_key, to_text


@dataclass
class Table:
    columns: list[str]
    rows: list[Row]


# The rows of a table by its lower-case name ("resources", "healthresources").
Source = Callable[[str], list[Row]]


def run(query: Query, source: Source) -> Table:
    # The index has no inherent order; sorting by id keeps pages stable between requests.
    rows = sorted(source(query.table.lower()), key=lambda row: to_text(row.get("id")).lower())
    table = Table(list(RESOURCE_COLUMNS), [{name: row.get(name) for name in RESOURCE_COLUMNS} for row in rows])
    return run_on(table, query, source)


def run_on(table: Table, query: Query, source: Source) -> Table:
    """`query`'s operators over `table` (its own table name ignored): a query's rows, or a facet's."""
    for operator in query.operators:
        table = _join(operator, table, run(operator.right, source)) if isinstance(operator, Join) \
            else _apply(operator, table)
    return table


def _join(join: Join, left: Table, right: Table) -> Table:
    """KQL's join: the right side's columns follow the left's, a clashing name taking the first free
    numeric suffix (`id1`, `name1`, the key itself too); null keys never match."""
    for left_column, right_column in join.keys:
        for column, table in ((left_column, left), (right_column, right)):
            if column not in table.columns:
                raise QueryError(f"join: failed to resolve column '{column}'")
    taken = set(left.columns)
    renamed: dict[str, str] = {}
    for column in right.columns:
        name, suffix = column, 1
        while name in taken:
            name, suffix = f"{column}{suffix}", suffix + 1
        renamed[column] = name
        taken.add(name)
    matches: dict[tuple[str, ...], list[Row]] = {}
    for row in right.rows:
        key = _join_key(row, [r for _, r in join.keys])
        if key is not None:
            matches.setdefault(key, []).append(row)
    rows: list[Row] = []
    seen: set[tuple[str, ...]] = set()
    for row in left.rows:
        key = _join_key(row, [left_key for left_key, _ in join.keys])
        if join.kind == "innerunique" and key is not None:
            if key in seen:
                continue  # innerunique keeps one left row per key
            seen.add(key)
        found = matches.get(key, []) if key is not None else []
        for match in found:
            rows.append({**row, **{renamed[c]: match.get(c) for c in right.columns}})
        if not found and join.kind == "leftouter":
            rows.append({**row, **{renamed[c]: None for c in right.columns}})
    return Table(left.columns + [renamed[c] for c in right.columns], rows)


def _join_key(row: Row, columns: list[str]) -> tuple[str, ...] | None:
    values = [row.get(column) for column in columns]
    if any(value is None for value in values):
        return None
    return tuple(json.dumps(value, sort_keys=True) for value in values)


def _apply(operator: Operator, table: Table) -> Table:
    if isinstance(operator, Where):
        check_expression(operator.predicate, table.columns)
        check_predicate(operator.predicate)
        return Table(table.columns, [row for row in table.rows if evaluate(operator.predicate, row) is True])
    if isinstance(operator, Extend):
        return _extend(operator.columns, table)
    if isinstance(operator, Project):
        return _project(operator.columns, table)
    if isinstance(operator, OrderBy):
        return _order(operator.keys, table)
    if isinstance(operator, Limit):
        return Table(table.columns, table.rows[: operator.count])
    if isinstance(operator, Top):
        ordered = _order(operator.keys, table)
        return Table(ordered.columns, ordered.rows[: operator.count])
    if isinstance(operator, Summarize):
        return _summarize(operator, table)
    if isinstance(operator, CountRows):
        return Table(["Count"], [{"Count": len(table.rows)}])
    raise AssertionError(f"unknown operator {operator!r}")


def _extend(items: tuple[NamedExpr, ...], table: Table) -> Table:
    columns = list(table.columns)
    rows = [dict(row) for row in table.rows]
    for item in items:  # later items may use columns defined by earlier ones
        check_expression(item.expr, columns)
        for row in rows:
            row[item.name] = evaluate(item.expr, row)
        if item.name not in columns:
            columns.append(item.name)
    return Table(columns, rows)


def _project(items: tuple[NamedExpr, ...], table: Table) -> Table:
    names = [item.name for item in items]
    duplicates = {name for name in names if names.count(name) > 1}
    if duplicates:
        raise QueryError(f"project: duplicate column name(s) {sorted(duplicates)}")
    for item in items:
        check_expression(item.expr, table.columns)
    rows = [{item.name: evaluate(item.expr, row) for item in items} for row in table.rows]
    return Table(names, rows)


def _order(keys: tuple[SortKey, ...], table: Table) -> Table:
    for key in keys:
        check_expression(key.expr, table.columns)

    def compare(left: Row, right: Row) -> int:
        for key in keys:
            result = _compare_values(evaluate(key.expr, left), evaluate(key.expr, right), key)
            if result:
                return result
        return 0

    return Table(table.columns, sorted(table.rows, key=cmp_to_key(compare)))


def _compare_values(left: Any, right: Any, key: SortKey) -> int:
    if left is None or right is None:
        if left is None and right is None:
            return 0
        # Nulls go first or last regardless of direction.
        return (-1 if left is None else 1) * (1 if key.nulls_first else -1)
    left_key, right_key = sort_key(left), sort_key(right)
    if left_key == right_key:
        return 0
    result = -1 if left_key < right_key else 1
    return -result if key.descending else result


def _summarize(operator: Summarize, table: Table) -> Table:
    for item in operator.by:
        check_expression(item.expr, table.columns)
    for item in operator.aggregates:
        check_expression(item.expr, table.columns, aggregates_allowed=True)
    groups: dict[str, tuple[list[Any], int]] = {}
    for row in table.rows:
        values = [evaluate(item.expr, row) for item in operator.by]
        group_key = "\x00".join(to_text(value) for value in values)
        first_values, count = groups.get(group_key, (values, 0))
        groups[group_key] = (first_values, count + 1)
    if not operator.by and not groups:
        groups[""] = ([], 0)  # `summarize count()` over nothing still answers one row: 0
    columns = [item.name for item in operator.by] + [item.name for item in operator.aggregates]
    rows: list[Row] = []
    # Ordered by the group values so answers are repeatable (KQL itself promises no order).
    ordered = sorted(groups.values(), key=lambda group: [sort_key(value) for value in group[0]])
    for values, count in ordered:
        row = {item.name: value for item, value in zip(operator.by, values, strict=True)}
        row.update({item.name: count for item in operator.aggregates})
        rows.append(row)
    return Table(columns, rows)
