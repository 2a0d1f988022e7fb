"""What "answers in Azure's shape" means for a conformance test: every key a Microsoft example response shows is
in the emulator's answer, with the same JSON type. Values are not compared (names, GUIDs and addresses differ).
"""

from __future__ import annotations

from typing import Any

# Keys whose value is user data: its keys are values (tag names), not structure.
_USER_DATA = {"tags"}


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def differences(example: Any, actual: Any, excluded: set[str], where: str = "") -> list[str]:
    """Where `actual` lacks a key of `example` or holds another JSON type: dotted paths, `[]` for list items
    (the example's first item against every item of the answer: one must match). `excluded` paths are skipped
    with what is below them; a key the example shows as null may be absent.
    """
    if where in excluded:
        return []
    if example is None:  # the example shows the key with no value: any value will do
        return []
    if json_type(example) != json_type(actual):
        return [f"{where or '<root>'}: {json_type(actual)} instead of {json_type(example)}"]
    if isinstance(example, dict):
        found: list[str] = []
        for key, value in example.items():
            path = f"{where}.{key}" if where else key
            if key not in actual:
                # A key the example shows as null tells nothing: Azure's serializers leave nulls out.
                if path not in excluded and value is not None:
                    found.append(f"{path}: missing")
            elif key not in _USER_DATA:
                found += differences(value, actual[key], excluded, path)
        return found
    if isinstance(example, list) and example:
        if not actual:
            return [] if f"{where}[]" in excluded else [f"{where}[]: empty"]
        # Some item of the answer has the shape of the example's first (lists need not share their order).
        found = [differences(example[0], item, excluded, f"{where}[]") for item in actual]
        return [] if [] in found else found[0]
    return []
