"""Extreme durations through every way `azmc` takes one (a spec, a pool spec, a flag, an environment variable):
one line naming the field, the flag or the variable, and the bounds; exit 1; never a traceback or OverflowError."""

import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli.commands import app
from models.durations import BOUNDS
from tests.support.durations import as_text, extreme_durations

EXAMPLES = Path(__file__).parents[2] / "examples"
MACHINE = json.loads((EXAMPLES / "machine.json").read_text())
POOL = json.loads((EXAMPLES / "pool.json").read_text())
TIMEOUTS = [key for key in BOUNDS if key.startswith("timeouts.")]
# Nothing listens here: a command that got past validation would say "cannot reach Temporal" instead.
NO_TEMPORAL = ["--temporal-address", "127.0.0.1:9"]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("AZMC_"):
            monkeypatch.delenv(key)


def _refused(args: list[str], *names: str) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1 and not isinstance(result.exception, ArithmeticError), (args, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, (args, result.stderr)
    for name in names:
        assert name in lines[0], (args, lines[0])


def _document(kind: str, field: str, value: Any) -> dict[str, Any]:
    if kind == "machine":
        return {**MACHINE, "timeouts": {field: value}}
    if kind == "template":
        return {**POOL, "template": {**POOL["template"], "timeouts": {field: value}}}
    return {**POOL, field: value}


# (BOUNDS key, document kind, field, where the message names it)
SPEC_FIELDS = [
    *[(key, "machine", key.split(".")[1], f"{key}:") for key in TIMEOUTS],
    *[(key, "template", key.split(".")[1], f"template.{key}:") for key in TIMEOUTS],
    ("min_ready", "pool", "min_ready", "min_ready:"),
    ("preserve_timeout", "pool", "preserve_timeout", "preserve_timeout:"),
]


@pytest.mark.parametrize(("key", "kind", "field", "named"), SPEC_FIELDS, ids=[f"{f[1]}-{f[2]}" for f in SPEC_FIELDS])
def test_apply_refuses_every_extreme_duration_in_one_line(
    tmp_path: Path, key: str, kind: str, field: str, named: str,
) -> None:
    spec = tmp_path / "spec.json"
    for value in extreme_durations(key, json_only=True):
        spec.write_text(json.dumps(_document(kind, field, value)))
        _refused(["apply", "-f", str(spec), *NO_TEMPORAL], named, BOUNDS[key].range)


# Each command that takes a duration flag, with the flag.
FLAGS = [
    (["worker"], "--sweep-interval", "sweep_interval"),
    (["worker"], "--orphan-grace", "orphan_grace"),
    (["orphans"], "--orphan-grace", "orphan_grace"),
    (["schedule", "ensure"], "--sweep-interval", "sweep_interval"),
    (["schedule", "ensure"], "--orphan-grace", "orphan_grace"),
]


@pytest.mark.parametrize(("command", "flag", "key"), FLAGS, ids=[f"{' '.join(f[0])} {f[1]}" for f in FLAGS])
def test_a_duration_flag_is_refused_naming_the_flag_and_its_bounds(command: list[str], flag: str, key: str) -> None:
    for value in as_text(extreme_durations(key)):
        _refused([*command, *NO_TEMPORAL, f"{flag}={value}"], f"invalid {flag}:", BOUNDS[key].range)


@pytest.mark.parametrize("key", ["sweep_interval", "orphan_grace", "graceful_shutdown_s"])
def test_a_duration_variable_is_refused_naming_the_variable_and_its_bounds(
    monkeypatch: pytest.MonkeyPatch, key: str,
) -> None:
    variable = f"AZMC_{key.upper()}"
    for value in as_text(extreme_durations(key)):
        monkeypatch.setenv(variable, value)
        for command in (["worker"], ["orphans"]):
            _refused([*command, *NO_TEMPORAL], f"invalid {variable}:", BOUNDS[key].range)


def test_orphan_grace_zero_is_zero_seconds_and_the_flag_wins_over_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--orphan-grace 0` is a duration (plain seconds), and a bad flag is named even when the variable is fine."""
    monkeypatch.setenv("AZMC_ORPHAN_GRACE", "30m")
    result = CliRunner().invoke(app, ["orphans", *NO_TEMPORAL, "--orphan-grace", "0"])
    assert "cannot reach Temporal" in result.stderr, result.stderr  # got past the settings
    _refused(["orphans", *NO_TEMPORAL, "--orphan-grace", "-5m"], "invalid --orphan-grace:", "from 0s to 30d")
