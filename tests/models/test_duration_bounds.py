"""Every duration has a minimum and a maximum in one table (models/durations.py BOUNDS) that validation, the
schema and docs/configuration.md read; a value outside them is refused naming the field and the bounds."""

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from models.durations import BOUNDS, CHECK_BOUNDS, bounds_table
from models.pool import PoolSpec
from models.schema import spec_json_schema
from models.spec import MachineSpec
from models.sweep import SweepInput
from models.validation import describe_validation_error
from tests.models.test_pool_spec import pool
from tests.models.test_spec import spec_dict
from tests.support.durations import extreme_durations

DOC = Path(__file__).parents[2] / "docs" / "configuration.md"
TIMEOUTS = [key for key in BOUNDS if key.startswith("timeouts.")]


def _machine(field: str, value: Any) -> dict[str, Any]:
    return spec_dict(timeouts={field: value})


def _template(field: str, value: Any) -> dict[str, Any]:
    return pool(template={**pool()["template"], "timeouts": {field: value}})


# Each model field holding a duration of BOUNDS: (BOUNDS key, model, document with the value, where it is named).
FIELDS: list[tuple[str, Any, Any, str]] = [
    *[(key, MachineSpec, lambda v, f=key.split(".")[1]: _machine(f, v), key) for key in TIMEOUTS],
    *[(key, PoolSpec, lambda v, f=key.split(".")[1]: _template(f, v), f"template.{key}") for key in TIMEOUTS],
    ("min_ready", PoolSpec, lambda v: pool(min_ready=v), "min_ready"),
    ("preserve_timeout", PoolSpec, lambda v: pool(preserve_timeout=v), "preserve_timeout"),
    ("orphan_grace", SweepInput, lambda v: {"orphan_grace": v}, "orphan_grace"),
]


@pytest.mark.parametrize(("key", "model", "document", "named"), FIELDS, ids=[f[3] for f in FIELDS])
def test_every_extreme_duration_is_refused_naming_the_field_and_the_bounds(
    key: str, model: Any, document: Any, named: str,
) -> None:
    for value in extreme_durations(key):
        with pytest.raises(ValidationError) as refused:
            model.model_validate(document(value), context=CHECK_BOUNDS)
        message = describe_validation_error(refused.value)
        assert f"{named}: " in message and BOUNDS[key].range in message, (value, message)


@pytest.mark.parametrize(("key", "model", "document", "named"), FIELDS, ids=[f[3] for f in FIELDS])
def test_the_bounds_themselves_are_accepted(key: str, model: Any, document: Any, named: str) -> None:
    bounds = BOUNDS[key]
    for value, expected in ((bounds.least, bounds.minimum), (bounds.most, bounds.maximum),
                            (bounds.maximum.total_seconds(), bounds.maximum)):  # fmt: skip
        checked = model.model_validate(document(value), context=CHECK_BOUNDS)
        found = checked
        for part in named.split("."):
            found = getattr(found, part)
        assert found == expected, (value, found)


def test_the_ways_a_duration_is_written() -> None:
    creation = BOUNDS["timeouts.creation"]
    assert [creation.check(v) for v in ("90s", "20m", "1h30m", "2d", "500ms1s", 90, 1.5, "90", " 20M ", "PT2H")] == [
        timedelta(seconds=90), timedelta(minutes=20), timedelta(minutes=90), timedelta(days=2),
        timedelta(seconds=1.5), timedelta(seconds=90), timedelta(seconds=1.5), timedelta(seconds=90),
        timedelta(minutes=20), timedelta(hours=2)]


def test_without_the_check_a_stored_duration_reads_as_azmc_always_read_it() -> None:
    """What an earlier azmc stored (a carried state, an activity's input) is not re-judged by newer bounds; a
    number too large for any duration is still a refused field, never an OverflowError."""
    stored = MachineSpec.model_validate(_machine("health_check_interval", "5s"))
    assert stored.timeouts.health_check_interval == timedelta(seconds=5)
    with pytest.raises(ValidationError, match="too long for a duration"):
        MachineSpec.model_validate(_machine("creation", "99999999999d"))
    with pytest.raises(ValidationError, match="creation must be positive"):  # the rule before the bounds
        MachineSpec.model_validate(_machine("creation", "0s"))


def test_the_schema_shows_each_durations_bounds() -> None:
    timeouts = spec_json_schema()["$defs"]["Timeouts"]["properties"]
    for key in TIMEOUTS:
        field, bounds = timeouts[key.split(".")[1]], BOUNDS[key]
        assert field["minimum"] == bounds.minimum.total_seconds()
        assert field["maximum"] == bounds.maximum.total_seconds()
        assert bounds.range in field["description"]
    pool_fields = PoolSpec.model_json_schema()["properties"]
    assert BOUNDS["min_ready"].range in pool_fields["min_ready"]["description"]


def test_the_docs_table_is_the_bounds_table() -> None:
    assert bounds_table() in DOC.read_text(), "docs/configuration.md: paste models.durations.bounds_table() again"
