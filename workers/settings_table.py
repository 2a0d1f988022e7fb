"""The worker's settings as people read them: each one's variable, default, bounds and meaning, from `Settings`
itself. docs/configuration.md holds `settings_table()` (tests/cli/test_settings_help_and_table.py keeps it equal)
and each flag's help ends with `in_brackets()` (cli/options.py), so neither is typed by hand."""

import re
from datetime import timedelta
from enum import Enum
from typing import Any

from annotated_types import Ge, Gt, Le, Lt
from pydantic.fields import FieldInfo

from models.durations import BOUNDS, format_duration
from workers.settings import Settings

_CHOICES = re.compile(r"^\^\(([\w|]+)\)\$$")  # a pattern that is a list of words: ^(text|json)$


def env_name(name: str) -> str:
    return f"AZMC_{name.upper()}"


def _field(name: str) -> FieldInfo:
    field = Settings.model_fields[name]
    if not field.description:
        raise ValueError(f"setting {name} has no meaning: give it one with workers.settings.setting")
    return field


def _extra(field: FieldInfo, key: str) -> str:
    extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
    return str(extra.get(key) or "")


def _value(value: Any) -> str:
    """A value as it is written in the environment."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, timedelta):
        return format_duration(value)
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)


def _words(words: list[str]) -> str:
    quoted = [f"`{word}`" for word in words]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def shown_default(name: str) -> str:
    """The default in Markdown ("" when there is none); a number as it is, a word as code."""
    field = _field(name)
    if _extra(field, "shown") or field.default is None:
        return _extra(field, "shown")
    number = isinstance(field.default, int | float) and not isinstance(field.default, bool)
    return _value(field.default) if number else f"`{_value(field.default)}`"


def shown_bounds(name: str) -> str:
    """What values the setting takes, when it has bounds or choices, in Markdown ("" otherwise)."""
    if name in BOUNDS:  # a duration
        return BOUNDS[name].range
    field = _field(name)
    kinds = [arg for arg in getattr(field.annotation, "__args__", ()) if arg is not type(None)] or [field.annotation]
    if isinstance(kinds[0], type) and issubclass(kinds[0], Enum):
        return _words([str(member.value) for member in kinds[0]])
    least = most = ""
    for rule in field.metadata:
        if isinstance(rule, Ge):
            least = f"at least {rule.ge}"
        elif isinstance(rule, Gt):
            least = f"above {rule.gt}"
        elif isinstance(rule, Le):
            most = f"at most {rule.le}"
        elif isinstance(rule, Lt):
            most = f"below {rule.lt}"
        elif (choices := _CHOICES.match(str(getattr(rule, "pattern", "")))) is not None:
            return _words(choices[1].split("|"))
    if least.startswith("at least") and most.startswith("at most"):
        return f"from {least.removeprefix('at least ')} to {most.removeprefix('at most ')}"
    return ", ".join(part for part in (least, most) if part)


def _see(name: str, link: bool) -> str:
    """The docs page (and section) that says more: a link for docs/, a path for `--help`."""
    see = _extra(_field(name), "see")
    if not see:
        return ""
    page, _, section = see.partition(", ")
    return f" ([{page}]({page}){', ' + section if section else ''})" if link else f" (docs/{see})"


def settings_table() -> str:
    """Every setting as the Markdown table of docs/configuration.md."""
    rows = [f"| `{env_name(name)}` | {shown_default(name)} | {shown_bounds(name)} | "
            f"{_field(name).description}{_see(name, link=True)} |" for name in Settings.model_fields]
    return "\n".join(["| variable | default | bounds | meaning |", "|---|---|---|---|", *rows])


def in_brackets(name: str) -> str:
    """`[env AZMC_X, default Y; bounds]`, the end of the help of a flag that sets `name` (backticks dropped: the
    brackets are read as they are)."""
    said = f"env {env_name(name)}" + (f", default {shown_default(name)}" if shown_default(name) else "")
    bounds = shown_bounds(name)
    return f"[{said}{'; ' + bounds if bounds else ''}]".replace("`", "")


def meaning(name: str) -> str:
    """The setting's meaning, and where to read more, for `--help`."""
    return f"{_field(name).description}{_see(name, link=False)}"
