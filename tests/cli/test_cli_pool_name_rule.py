"""One rule for a pool's name wherever `azmc` takes one (models/arm_names.py POOL_NAME): `azmc get --pool` and
every `azmc pool` command refuse the same names, before any connection, and take the same ones."""

import pytest
from typer.testing import CliRunner, Result

from cli.commands import app

NO_TEMPORAL = ["--temporal-address", "127.0.0.1:9"]  # nothing listens: a name taken fails to connect
REFUSED = ["web pool", "web'", ".web", "web-", "_web", "web.", "wéb", "w" * 64, "web;x", "web\n"]
TAKEN = ["web", "web_1", "Web.A", "w" * 63, "a"]  # the last four no MachinePool can be named: not found


def _commands(name: str) -> list[list[str]]:
    return [["get", "--pool", name], ["pool", "scale", name, "--replicas", "1"], ["pool", "describe", name],
            ["pool", "delete", name], ["pool", "describe", name, "-g", "azmc-demo"]]


def _run(argv: list[str]) -> Result:
    return CliRunner().invoke(app, [*argv, *NO_TEMPORAL])


@pytest.mark.parametrize("name", REFUSED)
def test_every_command_refuses_the_same_names(name: str) -> None:
    for argv in _commands(name):
        result = _run(argv)
        lines = result.stderr.strip().splitlines()
        assert result.exit_code == 1 and len(lines) == 1, (argv, result.output)
        assert "pool" in lines[0] and "is not valid" in lines[0] and "Temporal" not in lines[0], (argv, lines[0])


@pytest.mark.parametrize("name", TAKEN)
def test_every_command_takes_the_same_names(name: str) -> None:
    for argv in _commands(name):
        result = _run(argv)
        assert "cannot reach Temporal" in result.stderr, (argv, result.output)
