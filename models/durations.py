"""Durations: how they are written ("90s", "20m", "1h30m", seconds, ISO 8601) and the bounds each one takes.

BOUNDS is the one home of every duration's minimum and maximum: validation, `azmc schema`, the flags' help
and docs/configuration.md (tests/models/test_duration_bounds.py keeps the page equal to `bounds_table()`)
all read it. A value outside its bounds is refused naming the field and the bounds, never turned into a
timer that overflows or one that fires every millisecond.

The bounds apply where a value comes in: a spec or pool spec validated with the context CHECK_BOUNDS (the
CLI, a workflow's input and its updates) and the worker's settings (always). Without that context a
duration is only parsed as azmc always did, so what an earlier azmc stored (a carried state, an activity's
input, a replayed history) reads back as it was written.
"""

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from types import MappingProxyType
from typing import Annotated, Any

from annotated_types import GroupedMetadata
from pydantic import BeforeValidator, PlainSerializer, TypeAdapter, ValidationError, ValidationInfo, WithJsonSchema

_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_PLAIN_SECONDS = re.compile(r"\d+(?:\.\d+)?(?:e[+-]?\d+)?")
_UNIT_SECONDS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}
_ISO = TypeAdapter(timedelta)
_EXAMPLES = '"20m", "1h30m", "2d", seconds (90) or ISO 8601 ("PT20M")'

# Validation context (`model_validate(data, context=CHECK_BOUNDS)`): check every duration against BOUNDS.
CHECK_BOUNDS = MappingProxyType({"check_duration_bounds": True})


def parse_duration(value: Any) -> Any:
    """Turn "1h30m" into a timedelta; leave anything else for pydantic's own timedelta parsing.

    How azmc read durations before their bounds, kept for values it stored then. A number too large for a
    timedelta is a ValueError (a refused field), never an OverflowError.
    """
    if isinstance(value, str):
        text = value.strip().lower()
        if text and _PART.sub("", text) == "":
            try:
                return timedelta(seconds=sum(float(n) * _UNIT_SECONDS[u] for n, u in _PART.findall(text)))
            except OverflowError:
                raise ValueError(f"{value!r} is too long for a duration") from None
    return value


def _seconds(value: Any) -> float | None:
    """The seconds `value` says (inf when too many to count), or None when it is not a duration at all."""
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    if isinstance(value, int | float):
        try:
            return float(value)
        except OverflowError:  # an int with hundreds of digits
            return math.inf if value > 0 else -math.inf
    text = value.strip().lower()
    sign = -1.0 if text.startswith("-") else 1.0
    unsigned = text.lstrip("+-")
    if len(text) - len(unsigned) > 1 or not unsigned:
        return None
    if _PLAIN_SECONDS.fullmatch(unsigned):
        return sign * float(unsigned)
    if _PART.sub("", unsigned) == "":
        return sign * sum(float(n) * _UNIT_SECONDS[u] for n, u in _PART.findall(unsigned))
    try:
        return _ISO.validate_python(value.strip()).total_seconds()
    except (ValidationError, OverflowError):
        return None


def _shown(value: Any) -> str:
    """The refused value as given, cut short: a message stays one readable line."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**40:
        return f"a number of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


@dataclass(frozen=True)
class Bounds:
    """The least and most a duration may be, written as a person reads them, and why."""

    least: str
    most: str
    why: str

    @property
    def minimum(self) -> timedelta:
        return timedelta(seconds=_seconds(self.least) or 0.0)

    @property
    def maximum(self) -> timedelta:
        return timedelta(seconds=_seconds(self.most) or 0.0)

    @property
    def range(self) -> str:
        return f"from {self.least} to {self.most}"

    def check(self, value: Any) -> timedelta:
        """`value` as a timedelta within the bounds, else ValueError with the value and the bounds."""
        seconds = _seconds(value)
        shown = _shown(value)
        if seconds is None or math.isnan(seconds):
            raise ValueError(f"{shown} is not a duration: give one {self.range}, e.g. {_EXAMPLES}")
        if seconds < self.minimum.total_seconds():
            raise ValueError(f"{shown} is below the minimum: give a duration {self.range}")
        if seconds > self.maximum.total_seconds():
            raise ValueError(f"{shown} is above the maximum: give a duration {self.range}")
        return value if isinstance(value, timedelta) else timedelta(seconds=seconds)

    def json_schema(self) -> dict[str, Any]:
        """A string as above, or seconds (JSON Schema bounds numbers only: the description says both)."""
        return {"type": ["string", "number"], "minimum": self.minimum.total_seconds(),
                "maximum": self.maximum.total_seconds(), "x-azmc-minimum": self.least, "x-azmc-maximum": self.most,
                "description": f"a duration {self.range}: {_EXAMPLES}. {self.why}"}


# Every duration azmc takes, by the name a user writes. Repeating waits (a health check, a sweep) have a floor
# that keeps one machine's history and ARM reads sparse; one-off deadlines need only be positive. No maximum
# reaches a date a timer cannot represent.
BOUNDS: dict[str, Bounds] = {
    "timeouts.creation": Bounds("1s", "30d", "How long creation may try before the machine ends Failed."),
    "timeouts.health": Bounds("1s", "30d", "How long a VM may stay missing or unhealthy before it is re-created."),
    "timeouts.drain": Bounds("1s", "1d", "How long the graceful power-off before deletion may take."),
    "timeouts.startup": Bounds("1s", "1d", "How long a new VM's guest may take to become healthy before the "
                               "creation attempt counts as failed."),
    "timeouts.health_check_interval": Bounds(
        "30s", "30d", "How often a Running machine reads its VM: each check costs history events and an ARM read."),
    "health.repair.wait": Bounds("1s", "1d", "How long a repair step may take to make the machine healthy "
                                 "before the next step."),
    "health.probe.period": Bounds("5s", "1h", "How often a Running machine probes its guest: each probe costs "
                                  "history events (no ARM read)."),
    "health.probe.timeout": Bounds("100ms", "1m", "How long one probe of the guest may take."),
    "min_ready": Bounds("0s", "7d", "How long a new machine of a pool must run before it counts as available."),
    "preserve_timeout": Bounds("1s", "90d", "How long a pool keeps a Failed machine powered off for diagnosis."),
    "sweep_interval": Bounds("1s", "1d", "How often the fleet sweep runs (one Resource Graph query a run)."),
    "orphan_grace": Bounds("0s", "30d", "How long a resource must be orphaned before the sweep deletes it."),
    "graceful_shutdown_s": Bounds("0s", "1h", "How long a stopping worker lets in-flight activities finish."),
    "quota_read_every": Bounds("10s", "1d", "How old the offerings memory's reading of the compute usages may be "
                                            "before a claim asks for a new one (one ARM read)."),
}

# Where each duration is set, for the docs table.
SET_IN = {
    "timeouts.creation": "machine spec, a pool's `template`",
    "timeouts.health": "machine spec, a pool's `template`",
    "timeouts.drain": "machine spec, a pool's `template`",
    "timeouts.startup": "machine spec, a pool's `template`",
    "health.repair.wait": "machine spec (each step of `health.repair`), a pool's `template`",
    "health.probe.period": "machine spec, a pool's `template`",
    "health.probe.timeout": "machine spec, a pool's `template`",
    "timeouts.health_check_interval": "machine spec, a pool's `template`",
    "min_ready": "pool spec",
    "preserve_timeout": "pool spec",
    "sweep_interval": "`AZMC_SWEEP_INTERVAL`, `--sweep-interval`",
    "orphan_grace": "`AZMC_ORPHAN_GRACE`, `--orphan-grace`",
    "graceful_shutdown_s": "`AZMC_GRACEFUL_SHUTDOWN_S` (seconds)",
    "quota_read_every": "`AZMC_QUOTA_READ_EVERY`",
}


def bounds_table() -> str:
    """BOUNDS as the Markdown table of docs/configuration.md."""
    rows = [f"| `{key}` | {SET_IN[key]} | {b.least} | {b.most} | {b.why} |" for key, b in BOUNDS.items()]
    return "\n".join(["| Duration | Set in | Minimum | Maximum | What it is |", "|---|---|---|---|---|", *rows])


@dataclass(frozen=True)
class Bounded(GroupedMetadata):
    """`Annotated[timedelta, Bounded("timeouts.creation")]`: the duration `key` of BOUNDS, checked against its
    bounds with the validation context CHECK_BOUNDS (`always`: in any case, for settings)."""

    key: str
    always: bool = False

    def __iter__(self) -> Iterator[Any]:
        bounds = BOUNDS[self.key]

        def validate(value: Any, info: ValidationInfo) -> Any:
            if self.always or (info.context or {}).get("check_duration_bounds"):
                return bounds.check(value)
            return parse_duration(value)

        yield BeforeValidator(validate)
        yield _AS_WRITTEN
        yield WithJsonSchema(bounds.json_schema())


def format_duration(value: timedelta) -> str:
    seconds = int(value.total_seconds())
    if seconds % 3600 == 0 and seconds:
        return f"{seconds // 3600}h"
    if seconds % 60 == 0 and seconds:
        return f"{seconds // 60}m"
    return f"{value.total_seconds():g}s"


# Serialized back as "20m" so the spec round-trips in the same words a person wrote.
_AS_WRITTEN = PlainSerializer(format_duration, return_type=str)


def humanize(value: timedelta) -> str:
    """A wait as a person reads it: "9m58s", "2h", "45s" (whole seconds; under a second is "0s")."""
    seconds = max(round(value.total_seconds()), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{n}{unit}" for n, unit in ((hours, "h"), (minutes, "m"), (secs, "s")) if n]
    return "".join(parts) or "0s"


# A duration azmc hands itself (an activity's input): parsed, not bounded.
Duration = Annotated[timedelta, BeforeValidator(parse_duration), _AS_WRITTEN]
