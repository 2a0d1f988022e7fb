"""KQL value semantics for Resource Graph rows: text conversion, comparisons, term matching.

Missing values (a tag a resource does not have, an absent property) are None; string operators
treat them as the empty string, as Resource Graph does for `tags['k'] != 'x'`.
"""

from __future__ import annotations

import json
from typing import Any


def to_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def equals(left: Any, right: Any, case_insensitive: bool) -> bool:
    if isinstance(left, str) or isinstance(right, str) or case_insensitive:
        left_text, right_text = to_text(left), to_text(right)
        if case_insensitive:
            return left_text.casefold() == right_text.casefold()
        return left_text == right_text
    if is_number(left) and is_number(right):
        return bool(left == right)
    return bool(left == right)


def ordered(op: str, left: Any, right: Any) -> bool:
    """`<`, `<=`, `>`, `>=`: numbers with numbers, strings with strings; anything else is false."""
    if not ((is_number(left) and is_number(right)) or (isinstance(left, str) and isinstance(right, str))):
        return False
    if op == "<":
        return bool(left < right)
    if op == "<=":
        return bool(left <= right)
    if op == ">":
        return bool(left > right)
    return bool(left >= right)


def _term_match(text: str, term: str, at_term_start: bool, at_term_end: bool) -> bool:
    """KQL `has` family: the term must begin (and/or end) on a term boundary, i.e. next to a
    non-alphanumeric character or the edge of the text."""
    if not term:
        return True
    start = text.find(term)
    while start >= 0:
        end = start + len(term)
        start_ok = start == 0 or not text[start - 1].isalnum() or not term[0].isalnum()
        end_ok = end == len(text) or not text[end].isalnum() or not term[-1].isalnum()
        if (start_ok or not at_term_start) and (end_ok or not at_term_end):
            return True
        start = text.find(term, start + 1)
    return False


def string_operator(op: str, left: Any, right: Any) -> bool:
    """`startswith`, `contains_cs`, `has`, `hasprefix`, ... (without the `!`)."""
    case_sensitive = op.endswith("_cs")
    base = op.removesuffix("_cs")
    term = to_text(right)
    # A dynamic array (e.g. bag_keys(tags)) matches when one of its elements does.
    candidates = [to_text(item) for item in left] if isinstance(left, list) and base.startswith("has") else None
    texts = candidates if candidates is not None else [to_text(left)]
    if not case_sensitive:
        term = term.casefold()
        texts = [text.casefold() for text in texts]
    return any(_string_match(base, text, term) for text in texts)


def _string_match(base: str, text: str, term: str) -> bool:
    if base == "startswith":
        return text.startswith(term)
    if base == "endswith":
        return text.endswith(term)
    if base == "contains":
        return term in text
    if base == "has":
        return _term_match(text, term, at_term_start=True, at_term_end=True)
    if base == "hasprefix":
        return _term_match(text, term, at_term_start=True, at_term_end=False)
    if base == "hassuffix":
        return _term_match(text, term, at_term_start=False, at_term_end=True)
    raise AssertionError(f"unknown string operator {base}")


def sort_key(value: Any) -> tuple[int, Any]:
    """Total order over mixed values: numbers, then bools, then strings, then dynamic values."""
    if is_number(value):
        return (0, value)
    if isinstance(value, bool):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    return (3, to_text(value))
