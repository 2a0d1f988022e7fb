"""Recursive-descent parser: tokens -> `Query` AST, refusing everything outside the subset by name."""

from __future__ import annotations

from .errors import QueryError
from .syntax import (
    Call,
    Column,
    Compare,
    CountRows,
    Expr,
    Extend,
    InList,
    Join,
    Limit,
    Literal,
    Logical,
    Member,
    NamedExpr,
    Operator,
    OrderBy,
    Project,
    Query,
    SortKey,
    Summarize,
    Top,
    Where,
    expression_name,
)
from .tokens import Kind, Token, tokenize

TABLES = frozenset({"resources", "healthresources", "spotresources"})
# Join kinds Resource Graph supports that the emulator models (innerunique is KQL's default).
JOIN_KINDS = frozenset({"innerunique", "inner", "leftouter"})
_SYMBOL_COMPARISONS = frozenset({"==", "=~", "!=", "!~", "<", "<=", ">", ">="})
# String operators; each also exists negated (`!contains`) and, in KQL, often as `_cs`.
_WORD_COMPARISONS = frozenset(
    {
        "startswith", "startswith_cs", "endswith", "endswith_cs", "contains", "contains_cs",
        "has", "has_cs", "hasprefix", "hasprefix_cs", "hassuffix", "hassuffix_cs",
    }
)  # fmt: skip
AGGREGATES = frozenset({"count"})
# Parentheses and calls nest at most this deep (the service refuses pathological queries too).
MAX_NESTING = 64
# The tabular operators the subset parses (`operator`), by the names a query may start with.
_OPERATORS = frozenset({"where", "filter", "extend", "project", "order", "sort", "limit", "take", "top", "summarize",
                        "count", "join"})
# Words that may follow a complete expression without being a binary operator.
_FOLLOWING_KEYWORDS = frozenset({"and", "or", "asc", "desc", "nulls", "by"})


def parse(text: str) -> Query:
    return _Parser(tokenize(text)).query()


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.index = 0
        self.nesting = 0

    # ---- token helpers ------------------------------------------------------------------------
    @property
    def current(self) -> Token:
        return self.tokens[self.index]

    def peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.index + offset, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.current
        self.index = min(self.index + 1, len(self.tokens) - 1)
        return token

    def at(self, kind: Kind, text: str | None = None) -> bool:
        token = self.current
        return token.kind is kind and (text is None or token.text.lower() == text)

    def expect(self, kind: Kind, text: str | None = None) -> Token:
        if not self.at(kind, text):
            wanted = repr(text) if text else kind.value
            raise QueryError(f"expected {wanted} but found {self.current.describe()} at position {self.current.start}")
        return self.advance()

    def adjacent(self, offset: int = 1) -> bool:
        """True when the token `offset` ahead touches the one before it (no space: `in~`, `!has`)."""
        return self.peek(offset - 1).end == self.peek(offset).start

    # ---- query and operators ------------------------------------------------------------------
    def query(self) -> Query:
        if self.at(Kind.IDENT, "let"):
            raise QueryError("unsupported statement 'let'", "UnsupportedOperator")
        query = self.tabular()
        if not self.at(Kind.END):
            raise QueryError(f"unexpected {self.current.describe()} at position {self.current.start}")
        return query

    def tabular(self) -> Query:
        """A table and its operators: the whole query, or a join's right side. A query may start with an
        operator: Resource Graph then reads `Resources` (`project id, location | limit 10`)."""
        operators: list[Operator] = []
        if self.at(Kind.IDENT) and self.current.text.lower() in _OPERATORS and self.current.text.lower() not in TABLES:
            table = "Resources"
            operators.append(self.operator())
        else:
            table = self.expect(Kind.IDENT).text
            if table.lower() not in TABLES:
                raise QueryError(f"unsupported table '{table}' (only Resources, HealthResources)", "UnsupportedTable")
        while self.at(Kind.PIPE):
            self.advance()
            operators.append(self.operator())
        return Query(table=table, operators=tuple(operators))

    def join(self) -> Join:
        kind = "innerunique"
        if self.at(Kind.IDENT, "kind"):
            self.advance()
            self.expect(Kind.OP, "=")
            kind = self.expect(Kind.IDENT).text.lower()
            if kind not in JOIN_KINDS:
                raise QueryError(f"unsupported join kind '{kind}'", "UnsupportedOperator")
        self.expect(Kind.LPAREN)
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise QueryError(f"the query nests parentheses or calls more than {MAX_NESTING} levels deep")
        right = self.tabular()
        self.nesting -= 1
        self.expect(Kind.RPAREN)
        self.expect(Kind.IDENT, "on")
        keys = [self.join_key()]
        while self.at(Kind.COMMA):
            self.advance()
            keys.append(self.join_key())
        return Join(kind, right, tuple(keys))

    def join_key(self) -> tuple[str, str]:
        """`col` (the same name on both sides) or `$left.a == $right.b` (either order)."""
        if not self.current.text.startswith("$"):
            name = self.expect(Kind.IDENT).text
            return name, name
        sides = {}
        for position in range(2):
            side = self.expect(Kind.IDENT).text.lower()
            if side not in ("$left", "$right") or side in sides:
                raise QueryError(f"expected $left.<column> == $right.<column> in join, found '{side}'")
            self.expect(Kind.DOT)
            sides[side] = self.expect(Kind.IDENT).text
            if position == 0:
                self.expect(Kind.OP, "==")
        return sides["$left"], sides["$right"]

    def operator(self) -> Operator:
        name = self.operator_name()
        if name == "where" or name == "filter":
            return Where(self.expression())
        if name == "extend":
            return Extend(self.named_list(auto_name="Column"))
        if name == "project":
            return Project(self.named_list(auto_name="Column"))
        if name in ("order", "sort"):
            self.expect(Kind.IDENT, "by")
            return OrderBy(self.sort_keys())
        if name in ("limit", "take"):
            return Limit(self.whole_number(name))
        if name == "top":  # `top N by key [asc|desc]`: sorted, then the first N
            count = self.whole_number(name)
            self.expect(Kind.IDENT, "by")
            return Top(count, self.sort_keys())
        if name == "summarize":
            return self.summarize()
        if name == "count":
            return CountRows()
        if name == "join":
            return self.join()
        raise QueryError(f"unsupported operator '{name}'", "UnsupportedOperator")

    def whole_number(self, operator: str) -> int:
        count = self.expect(Kind.NUMBER).text
        if not count.isdigit():
            raise QueryError(f"'{operator}' needs a whole number, got {count}")
        return int(count)

    def operator_name(self) -> str:
        """Operator names may contain dashes (`mv-expand`, `project-away`): join touching parts."""
        parts = [self.expect(Kind.IDENT).text]
        while self.at(Kind.OP, "-") and self.adjacent(0) and self.peek().kind is Kind.IDENT and self.adjacent():
            self.advance()
            parts.append(self.advance().text)
        return "-".join(parts).lower()

    def named_list(self, auto_name: str) -> tuple[NamedExpr, ...]:
        items: list[NamedExpr] = []
        while True:
            items.append(self.named_expression(auto_name, len(items) + 1))
            if not self.at(Kind.COMMA):
                return tuple(items)
            self.advance()

    def named_expression(self, auto_name: str, position: int) -> NamedExpr:
        if self.at(Kind.IDENT) and self.peek().kind is Kind.OP and self.peek().text == "=":
            name = self.advance().text
            self.advance()
            return NamedExpr(name, self.expression())
        expr = self.expression()
        return NamedExpr(expression_name(expr) or f"{auto_name}{position}", expr)

    def sort_keys(self) -> tuple[SortKey, ...]:
        keys: list[SortKey] = []
        while True:
            expr = self.expression()
            descending = True  # KQL sorts descending unless told otherwise
            if self.at(Kind.IDENT, "asc") or self.at(Kind.IDENT, "desc"):
                descending = self.advance().text.lower() == "desc"
            nulls_first = not descending
            if self.at(Kind.IDENT, "nulls"):
                self.advance()
                if not (self.at(Kind.IDENT, "first") or self.at(Kind.IDENT, "last")):
                    raise QueryError("expected 'first' or 'last' after 'nulls'")
                nulls_first = self.advance().text.lower() == "first"
            keys.append(SortKey(expr, descending, nulls_first))
            if not self.at(Kind.COMMA):
                return tuple(keys)
            self.advance()

    def summarize(self) -> Summarize:
        aggregates: tuple[NamedExpr, ...] = ()
        if not self.at(Kind.IDENT, "by"):
            aggregates = self.named_list(auto_name="Column")
            for item in aggregates:
                if not (isinstance(item.expr, Call) and item.expr.name in AGGREGATES):
                    raise QueryError("unsupported aggregation in summarize (only count())", "UnsupportedFunction")
            # An unnamed count() is called `count_` in Resource Graph's answers (KQL's name; Microsoft's
            # `ResourcesComplexQuery` example sorts by it: `top 3 by count_`).
            aggregates = tuple(
                NamedExpr("count_", item.expr) if item.name.startswith("Column") else item for item in aggregates
            )
        by: tuple[NamedExpr, ...] = ()
        if self.at(Kind.IDENT, "by"):
            self.advance()
            by = self.named_list(auto_name="Column")
        if not aggregates and not by:
            raise QueryError("summarize needs an aggregation or a 'by' clause")
        return Summarize(aggregates, by)

    # ---- scalar expressions -------------------------------------------------------------------
    def expression(self) -> Expr:
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise QueryError(f"the query nests parentheses or calls more than {MAX_NESTING} levels deep")
        left = self.conjunction()
        while self.at(Kind.IDENT, "or"):
            self.advance()
            left = Logical("or", left, self.conjunction())
        self.nesting -= 1
        return left

    def conjunction(self) -> Expr:
        left = self.comparison()
        while self.at(Kind.IDENT, "and"):
            self.advance()
            left = Logical("and", left, self.comparison())
        return left

    def comparison(self) -> Expr:
        left = self.postfix()
        token = self.current
        if token.kind is Kind.OP and token.text in _SYMBOL_COMPARISONS:
            self.advance()
            return Compare(token.text, left, self.postfix())
        negated = token.kind is Kind.OP and token.text == "!" and self.peek().kind is Kind.IDENT
        if negated and not self.adjacent():
            raise QueryError(f"unexpected '!' at position {token.start}")
        word_at = 1 if negated else 0
        word = self.peek(word_at)
        if word.kind is not Kind.IDENT:
            return left
        lowered = word.text.lower()
        if lowered == "in":
            for _ in range(word_at + 1):
                self.advance()
            case_insensitive = self.at(Kind.OP, "~") and self.adjacent(0)
            if case_insensitive:
                self.advance()
            return InList(left, self.literal_list(), case_insensitive, negated)
        if lowered in _WORD_COMPARISONS:
            for _ in range(word_at + 1):
                self.advance()
            return Compare(("!" if negated else "") + lowered, left, self.postfix())
        if negated or lowered not in _FOLLOWING_KEYWORDS:
            shown = ("!" if negated else "") + word.text
            raise QueryError(f"unsupported operator '{shown}'", "UnsupportedOperator")
        return left

    def literal_list(self) -> tuple[Expr, ...]:
        self.expect(Kind.LPAREN)
        items: list[Expr] = []
        while not self.at(Kind.RPAREN):
            item = self.postfix()
            if not isinstance(item, Literal):
                raise QueryError("only literal values are supported inside in (...)")
            items.append(item)
            if not self.at(Kind.COMMA):
                break
            self.advance()
        self.expect(Kind.RPAREN)
        return tuple(items)

    def postfix(self) -> Expr:
        expr = self.primary()
        while True:
            if self.at(Kind.DOT):
                self.advance()
                expr = Member(expr, self.expect(Kind.IDENT).text)
            elif self.at(Kind.LBRACKET):
                self.advance()
                key = self.primary()
                if not isinstance(key, Literal) or not isinstance(key.value, str | int):
                    raise QueryError("only literal keys are supported inside [...]")
                self.expect(Kind.RBRACKET)
                expr = Member(expr, key.value)
            else:
                return expr

    def primary(self) -> Expr:
        token = self.current
        if token.kind is Kind.STRING:
            self.advance()
            return Literal(token.text)
        if token.kind is Kind.NUMBER or (token.kind is Kind.OP and token.text == "-"):
            return self.number()
        if token.kind is Kind.LPAREN:
            self.advance()
            inner = self.expression()
            self.expect(Kind.RPAREN)
            return inner
        if token.kind is Kind.IDENT:
            self.advance()
            lowered = token.text.lower()
            if lowered in ("true", "false"):
                return Literal(lowered == "true")
            if self.at(Kind.LPAREN):
                return Call(lowered, self.arguments())
            return Column(token.text)
        raise QueryError(f"unexpected {token.describe()} at position {token.start}")

    def number(self) -> Literal:
        sign = -1 if self.at(Kind.OP, "-") else 1
        if sign < 0:
            self.advance()
        text = self.expect(Kind.NUMBER).text
        try:
            value: int | float = int(text) if text.isdigit() else float(text)
        except ValueError as exc:
            raise QueryError(f"invalid number '{text}'") from exc
        return Literal(sign * value)

    def arguments(self) -> tuple[Expr, ...]:
        self.expect(Kind.LPAREN)
        args: list[Expr] = []
        while not self.at(Kind.RPAREN):
            args.append(self.expression())
            if not self.at(Kind.COMMA):
                break
            self.advance()
        self.expect(Kind.RPAREN)
        return tuple(args)
