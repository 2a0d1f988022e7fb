"""Evaluates scalar expressions against one row, and checks column references before running."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .errors import QueryError
from .syntax import Call, Column, Compare, Expr, InList, Literal, Logical, Member
from .values import equals, is_number, ordered, string_operator, to_text

Row = dict[str, Any]


def _isempty(value: Any) -> bool:
    return value is None or value == ""


def _bag_keys(value: Any) -> list[str] | None:
    return list(value.keys()) if isinstance(value, dict) else None


def _array_length(value: Any) -> int | None:
    return len(value) if isinstance(value, list) else None


def _tolong(value: Any) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, dict | list) else None
    except (TypeError, ValueError):
        return None


# name -> (argument count, implementation)
SCALAR_FUNCTIONS: dict[str, tuple[int, Callable[..., Any]]] = {
    "isempty": (1, _isempty),
    "isnotempty": (1, lambda value: not _isempty(value)),
    "isnull": (1, lambda value: value is None),
    "isnotnull": (1, lambda value: value is not None),
    "not": (1, lambda value: value is not True),
    "bag_keys": (1, _bag_keys),
    "array_length": (1, _array_length),
    "tostring": (1, to_text),
    "tolower": (1, lambda value: to_text(value).lower()),
    "toupper": (1, lambda value: to_text(value).upper()),
    "strlen": (1, lambda value: len(to_text(value))),
    "tolong": (1, _tolong),
    "toint": (1, _tolong),
}


def evaluate(expr: Expr, row: Row) -> Any:
    if isinstance(expr, Literal):
        return expr.value
    if isinstance(expr, Column):
        return row.get(expr.name)
    if isinstance(expr, Member):
        return _member(evaluate(expr.base, row), expr.key)
    if isinstance(expr, Logical):
        left = evaluate(expr.left, row) is True
        if expr.op == "and":
            return left and evaluate(expr.right, row) is True
        return left or evaluate(expr.right, row) is True
    if isinstance(expr, Compare):
        return _compare(expr.op, evaluate(expr.left, row), evaluate(expr.right, row))
    if isinstance(expr, InList):
        value = evaluate(expr.left, row)
        found = any(equals(value, evaluate(item, row), expr.case_insensitive) for item in expr.items)
        return found != expr.negated
    if isinstance(expr, Call):
        _arity, function = SCALAR_FUNCTIONS[expr.name]
        return function(*(evaluate(arg, row) for arg in expr.args))
    raise AssertionError(f"unknown expression {expr!r}")


def _member(value: Any, key: str | int) -> Any:
    if isinstance(key, int):
        if isinstance(value, list) and -len(value) <= key < len(value):
            return value[key]
        return None
    return value.get(key) if isinstance(value, dict) else None


def _compare(op: str, left: Any, right: Any) -> bool:
    if op == "==":
        return equals(left, right, case_insensitive=False)
    if op == "!=":
        return not equals(left, right, case_insensitive=False)
    if op == "=~":
        return equals(left, right, case_insensitive=True)
    if op == "!~":
        return not equals(left, right, case_insensitive=True)
    if op in ("<", "<=", ">", ">="):
        return ordered(op, left, right)
    if op.startswith("!"):
        return not string_operator(op[1:], left, right)
    return string_operator(op, left, right)


def check_expression(expr: Expr, columns: Iterable[str], aggregates_allowed: bool = False) -> None:
    """Refuse unknown columns and functions before any row is touched (never a silent null)."""
    known = set(columns)
    for node in _walk(expr):
        if isinstance(node, Column) and node.name not in known:
            raise QueryError(f"Failed to resolve scalar expression named '{node.name}'")
        if isinstance(node, Call):
            _check_call(node, aggregates_allowed and node is expr)
        if isinstance(node, Logical):
            check_predicate(node)


_BOOLEAN_FUNCTIONS = frozenset({"isempty", "isnotempty", "isnull", "isnotnull", "not"})


def check_predicate(expr: Expr) -> None:
    """`where`/`and`/`or`/`not()` need booleans: refuse `where tolower(name)` or `where 'x'` instead
    of silently dropping every row. Columns and dynamic paths may hold booleans, so they pass."""
    if isinstance(expr, Logical):
        check_predicate(expr.left)
        check_predicate(expr.right)
    elif isinstance(expr, Call) and expr.name == "not" and len(expr.args) == 1:
        check_predicate(expr.args[0])
    elif isinstance(expr, Call) and expr.name not in _BOOLEAN_FUNCTIONS:
        raise QueryError(f"'{expr.name}' does not return a boolean and cannot be used as a predicate")
    elif isinstance(expr, Literal) and not isinstance(expr.value, bool):
        raise QueryError(f"the literal {expr.value!r} cannot be used as a predicate")


def _check_call(call: Call, is_aggregate_position: bool) -> None:
    if is_aggregate_position and call.name == "count":
        if call.args:
            raise QueryError("count() takes no arguments")
        return
    if call.name not in SCALAR_FUNCTIONS:
        raise QueryError(f"unsupported function '{call.name}'", "UnsupportedFunction")
    arity, _function = SCALAR_FUNCTIONS[call.name]
    if len(call.args) != arity:
        raise QueryError(f"function '{call.name}' expects {arity} argument(s), got {len(call.args)}")


def _walk(expr: Expr) -> Iterator[Expr]:
    yield expr
    if isinstance(expr, Member):
        yield from _walk(expr.base)
    elif isinstance(expr, Logical | Compare):
        yield from _walk(expr.left)
        yield from _walk(expr.right)
    elif isinstance(expr, InList):
        yield from _walk(expr.left)
        for item in expr.items:
            yield from _walk(item)
    elif isinstance(expr, Call):
        for arg in expr.args:
            yield from _walk(arg)


def infer_type(values: Iterable[Any]) -> str:
    """Column type for the table result format, from the first non-null value."""
    for value in values:
        if value is None:
            continue
        if isinstance(value, bool):
            return "boolean"
        if isinstance(value, int):
            return "integer"
        if is_number(value):
            return "number"
        if isinstance(value, str):
            return "string"
        return "object"
    return "string"
