"""Human-friendly durations for JSON specs: "90s", "20m", "2h", "1h30m", plain seconds, or ISO 8601."""

import re
from datetime import timedelta
from typing import Annotated, Any

from pydantic import BeforeValidator, PlainSerializer

_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(value: Any) -> Any:
    """Turn "1h30m" into a timedelta; leave anything else for pydantic's own timedelta parsing."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text and _PART.sub("", text) == "":
            return timedelta(seconds=sum(float(n) * _UNIT_SECONDS[u] for n, u in _PART.findall(text)))
    return value


def format_duration(value: timedelta) -> str:
    seconds = int(value.total_seconds())
    if seconds % 3600 == 0 and seconds:
        return f"{seconds // 3600}h"
    if seconds % 60 == 0 and seconds:
        return f"{seconds // 60}m"
    return f"{value.total_seconds():g}s"


def humanize(value: timedelta) -> str:
    """A wait as a person reads it: "9m58s", "2h", "45s" (whole seconds; under a second is "0s")."""
    seconds = max(round(value.total_seconds()), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{n}{unit}" for n, unit in ((hours, "h"), (minutes, "m"), (secs, "s")) if n]
    return "".join(parts) or "0s"


# Serialized back as "20m" so the spec round-trips in the same words a person wrote.
Duration = Annotated[timedelta, BeforeValidator(parse_duration), PlainSerializer(format_duration, return_type=str)]
