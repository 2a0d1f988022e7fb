"""AST of the KQL subset: scalar expressions and the tabular operators of a pipeline."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeAlias


# ---- scalar expressions -------------------------------------------------------------------------
@dataclass(frozen=True)
class Literal:
    value: Any  # str | int | float | bool | None


@dataclass(frozen=True)
class Column:
    name: str


@dataclass(frozen=True)
class Member:
    """`base.key`, `base['key']` or `base[0]`: a step into a dynamic (dict/list) value."""

    base: Expr
    key: str | int


@dataclass(frozen=True)
class Call:
    name: str  # lower-case function name
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Compare:
    """Binary predicate: `==`, `=~`, `startswith`, `!has`, `contains_cs`, `<`, ..."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class InList:
    left: Expr
    items: tuple[Expr, ...]
    case_insensitive: bool
    negated: bool


@dataclass(frozen=True)
class Logical:
    op: str  # "and" | "or"
    left: Expr
    right: Expr


Expr: TypeAlias = Literal | Column | Member | Call | Compare | InList | Logical


@dataclass(frozen=True)
class NamedExpr:
    name: str
    expr: Expr


@dataclass(frozen=True)
class SortKey:
    expr: Expr
    descending: bool
    nulls_first: bool


# ---- tabular operators --------------------------------------------------------------------------
@dataclass(frozen=True)
class Where:
    predicate: Expr


@dataclass(frozen=True)
class Extend:
    columns: tuple[NamedExpr, ...]


@dataclass(frozen=True)
class Project:
    columns: tuple[NamedExpr, ...]


@dataclass(frozen=True)
class OrderBy:
    keys: tuple[SortKey, ...]


@dataclass(frozen=True)
class Limit:
    count: int


@dataclass(frozen=True)
class Top:
    count: int
    keys: tuple[SortKey, ...]


@dataclass(frozen=True)
class Summarize:
    aggregates: tuple[NamedExpr, ...]  # each expr is a Call to an aggregation function
    by: tuple[NamedExpr, ...]


@dataclass(frozen=True)
class CountRows:
    """`| count`: one row with the number of input rows."""


@dataclass(frozen=True)
class Join:
    """`join kind=leftouter (<query>) on a` or `on $left.a == $right.b`: rows of the left table side by side
    with the right query's rows whose keys are equal."""

    kind: str  # "innerunique" (KQL's default), "inner" or "leftouter"
    right: Query
    keys: tuple[tuple[str, str], ...]  # (left column, right column)


Operator: TypeAlias = Where | Extend | Project | OrderBy | Limit | Top | Summarize | CountRows | Join


@dataclass(frozen=True)
class Query:
    table: str
    operators: tuple[Operator, ...] = field(default_factory=tuple)

    @property
    def has_limit(self) -> bool:
        """Resource Graph disables paging ($skip, $skipToken) for queries that limit/take."""
        return any(isinstance(op, (Limit, Top)) for op in self.operators)


def expression_name(expr: Expr) -> str | None:
    """The column name KQL gives an unnamed expression: `tags.env` -> `tags_env`,
    `tostring(properties.a)` -> `properties_a`; None when KQL would make up `ColumnN`."""
    if isinstance(expr, Column):
        return expr.name
    if isinstance(expr, Member):
        base = expression_name(expr.base)
        return None if base is None else f"{base}_{expr.key}"
    if isinstance(expr, Call) and len(expr.args) == 1 and expr.name in _NAME_PRESERVING:
        return expression_name(expr.args[0])
    return None


_NAME_PRESERVING = frozenset({"tostring", "tolower", "toupper", "tolong", "toint", "todouble", "tobool"})
