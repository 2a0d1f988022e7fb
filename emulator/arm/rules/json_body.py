"""What ARM accepts as a request body before any resource rule: size, JSON, depth, numbers."""

from __future__ import annotations

import json
from typing import Any

from emulator.arm.errors import ArmError

MAX_BODY_BYTES = 4 * 1024 * 1024  # ARM refuses larger requests (RequestContentTooLarge)
MAX_DEPTH = 64  # Json.NET's MaxDepth, which ARM's deserializer applies


def too_large() -> ArmError:
    return ArmError(413, "RequestContentTooLarge", "The request content size exceeds the maximum size of 4 MB.")


def invalid_content(reason: str, path: str = "") -> ArmError:
    where = f" Path '{path}'." if path else ""
    return ArmError(400, "InvalidRequestContent",
                    f"The request content was invalid and could not be deserialized: '{reason}{where}'",
                    target=path or None)


def parse(raw: bytes) -> Any:
    """The JSON value of a body, refusing what ARM's deserializer refuses: bad JSON, NaN/Infinity, depth > 64.

    Nulls are dropped from objects: to ARM a null property is an absent one."""
    if len(raw) > MAX_BODY_BYTES:
        raise too_large()
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except RecursionError:
        raise invalid_content(f"The reader's MaxDepth of {MAX_DEPTH} has been exceeded.") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise invalid_content(str(exc)) from None
    if depth(value) > MAX_DEPTH:
        raise invalid_content(f"The reader's MaxDepth of {MAX_DEPTH} has been exceeded.")
    return _without_nulls(value)


def depth(value: Any) -> int:
    """Nesting depth of a JSON value, without recursion (it is the guard against deep input)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, level + 1) for child in children)
    return deepest


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"Unexpected character encountered while parsing value: {name}. JSON has no {name}.")


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value
