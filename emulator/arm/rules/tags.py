"""ARM's tag limits: at most 50, names 1-512 characters without `<>%&\\?/` or controls, values up to 256."""

from __future__ import annotations

import unicodedata
from typing import Any

from emulator.arm.errors import ArmError
from emulator.arm.rules.json_body import invalid_content

MAX_TAGS = 50
MAX_NAME = 512
MAX_VALUE = 256
_RESERVED = set("<>%&\\?/")


def check_tags(tags: Any) -> None:
    """`tags` as a request carries it (absent: None). Raises ARM's error for the first rule broken."""
    if tags is None:
        return
    if not isinstance(tags, dict):
        raise invalid_content(f"Error converting value {_shown(tags)} to type 'Dictionary[String,String]'.", "tags")
    for name, value in tags.items():
        if not isinstance(value, str):
            raise invalid_content(f"Error converting value {_shown(value)} to type 'String'.", f"tags.{name}")
    if len(tags) > MAX_TAGS:
        raise ArmError(400, "InvalidTags", f"Too many tags specified. Requested tag count - '{len(tags)}'. "
                                           f"Maximum number of tags allowed - '{MAX_TAGS}'.")
    if any(not name.strip() for name in tags):
        raise ArmError(400, "InvalidTagName", "The tag name must be non-null, non-empty and non-whitespace only. "
                                              "Please provide an actual value.")
    reserved = [n for n in tags if any(c in _RESERVED or unicodedata.category(c) == "Cc" for c in n)]
    if reserved:
        raise ArmError(400, "InvalidTagNameCharacters",
                       f"The tag names '{', '.join(reserved)}' have reserved characters '<,>,%,&,\\,?,/' or "
                       "control characters.")
    long_names = [n for n in tags if len(n) > MAX_NAME]
    if long_names:
        raise ArmError(400, "InvalidTagName",
                       f"Tag key too large. Following tag name '{', '.join(n[:40] + '...' for n in long_names)}' "
                       f"exceeded the maximum length. Maximum allowed length for tag name - '{MAX_NAME}' characters.")
    long_values = [v for v in tags.values() if len(v) > MAX_VALUE]
    if long_values:
        raise ArmError(400, "InvalidTagValueLength",
                       f"Tag value too large. Following tag value '{', '.join(v[:40] + '...' for v in long_values)}' "
                       f"exceeded the maximum length. Maximum allowed length for tag value - '{MAX_VALUE}' "
                       "characters.")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
