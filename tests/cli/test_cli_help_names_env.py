"""`--help` shows every setting's environment variable: rich markup would take "[env AZMC_...]" for a style tag
and print nothing (cli/options.py, HELP_MARKUP)."""

import re

import pytest
import typer
from typer.main import get_command
from typer.testing import CliRunner

from cli.commands import app

COMMANDS = [["worker"], ["get"], ["apply"], ["schedule", "ensure"], ["pool", "get"], ["deployment", "promote"]]


def env_names(path: list[str]) -> set[str]:
    """The AZMC_* names the command's option help texts give."""
    command = get_command(app)
    for name in path:
        command = command.commands[name]
    helps = " ".join(getattr(param, "help", "") or "" for param in command.params)
    return set(re.findall(r"\[env (AZMC_[A-Z_]+)", helps))


@pytest.mark.parametrize("path", COMMANDS, ids=" ".join)
def test_help_shows_every_env_name_it_gives(path: list[str]) -> None:
    names = env_names(path)
    assert names, f"azmc {' '.join(path)} gives no env name: the test would prove nothing"
    shown = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).output
    assert {name for name in names if name not in shown} == set()


def test_rich_markup_would_hide_them() -> None:
    """Not vacuous: the same help in rich markup mode prints no env name."""
    hidden = typer.Typer(rich_markup_mode="rich")

    @hidden.command()
    def show(namespace: str = typer.Option("", help="[env AZMC_TEMPORAL_NAMESPACE]")) -> None:
        del namespace

    assert "AZMC_TEMPORAL_NAMESPACE" not in CliRunner().invoke(hidden, ["--help"], env={"COLUMNS": "200"}).output
