"""The worker's settings are described once, in `Settings` (workers/settings.py): docs/configuration.md's table and
every flag's `[env AZMC_X, default Y; bounds]` are made from it (workers/settings_table.py), so a default or a
bound changed in the code changes both."""

import re
from pathlib import Path
from typing import Any

import pytest
from typer.core import TyperOption
from typer.main import get_command
from typer.testing import CliRunner

from cli.commands import app
from models.durations import BOUNDS
from workers.settings import Settings, flag_of
from workers.settings_table import env_name, in_brackets, settings_table

DOCS = Path(__file__).parents[2] / "docs"
BRACKETS = re.compile(r"\[env (AZMC_[A-Z_]+)[^\]]*\]")


def options(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, TyperOption]]:
    """Every option of every `azmc` command, with the command's words."""
    found = [(" ".join(path), param) for param in command.params if isinstance(param, TyperOption)]
    for name, sub in getattr(command, "commands", {}).items():
        found += options(sub, (*path, name))
    return found


def test_the_docs_table_is_the_settings_table() -> None:
    table = settings_table()
    assert all(f"`{env_name(name)}`" in table for name in Settings.model_fields)
    assert table in (DOCS / "configuration.md").read_text(), (
        "docs/configuration.md: paste workers.settings_table.settings_table() again")


def test_the_table_says_defaults_and_bounds_as_the_code_has_them() -> None:
    rows = {row.split(" | ")[0].strip("| `"): row.split(" | ") for row in settings_table().splitlines()[2:]}
    assert rows["AZMC_TASK_QUEUE"][1] == f"`{Settings.model_fields['task_queue'].default}`"
    assert rows["AZMC_SWEEP_INTERVAL"][1:3] == ["`1m`", BOUNDS["sweep_interval"].range]
    assert rows["AZMC_METRICS_PORT"][2] == "from 0 to 65535"
    assert rows["AZMC_LOG_FORMAT"][2] == "`text` or `json`"
    assert rows["AZMC_AZURE_TOKEN"][1] == "`azmc-emulator`"  # what the code uses when the setting is unset


def test_the_pages_the_settings_point_to_exist() -> None:
    for name, field in Settings.model_fields.items():
        see = (field.json_schema_extra or {}).get("see", "") if isinstance(field.json_schema_extra, dict) else ""
        if see:
            page, _, section = str(see).partition(", ")
            text = (DOCS / page).read_text()
            headings = re.findall(r"^#+ (.+)$", text, re.MULTILINE)
            assert not section or any(h.startswith(section.strip('"')) for h in headings), f"{name}: {see}"


def test_every_flag_that_names_a_setting_says_what_the_setting_says() -> None:
    named = [(where, param, BRACKETS.search(param.help or "")) for where, param in options(get_command(app))]
    named = [(where, param, found) for where, param, found in named if found]
    assert len(named) >= 20, "the walk found too few flags to prove anything"
    for where, param, found in named:
        setting = found[1].removeprefix("AZMC_").lower()
        assert found[0] == in_brackets(setting), f"azmc {where} {param.opts}: {found[0]}"
        if param.name != "subscription":  # `azmc offerings --subscription` only defaults to the setting
            assert flag_of(setting) in param.opts, f"azmc {where} {param.opts} sets {setting}"


@pytest.mark.parametrize("args", [["deployment", "status", "--deployment", "no spaces"],
                                  ["worker", "--metrics-port", "70000"]], ids=" ".join)
def test_a_refused_flag_is_named_as_it_is_spelled(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AZMC_DEPLOYMENT_NAME", raising=False)
    monkeypatch.delenv("AZMC_METRICS_PORT", raising=False)
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 1
    assert f"invalid {args[-2]}:" in done.output, done.output
