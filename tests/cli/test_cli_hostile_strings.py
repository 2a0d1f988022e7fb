"""Hostile strings through `azmc` on a real Temporal dev server, emulator and `azmc worker` process.

Names that are not valid machine / resource group / pool names never reach a visibility query (they
are refused in one line); names, file names and Azure's messages holding rich markup are printed as text, and
their invisible characters (a right-to-left override, a terminal escape sequence) escaped.
"""

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.client import Client, WorkflowExecutionStatus
from typer.testing import CliRunner, Result

from cli import machines
from cli.commands import app
from emulator.seed import SEED_RESOURCE_GROUP
from models.naming import workflow_id
from tests.e2e.machines import spec
from tests.e2e.stack import CODEC_KEYS, STACK_CONVERTER, Stack, running_stack, wait_until

RG = SEED_RESOURCE_GROUP
MARKUP = "[/x] Azure said [bold]no[/bold] :x:"
INVISIBLE = " for 'x\u202egnp.exe'\x1b[2J"  # reorders what follows; clears the terminal
SHOWN = " for 'x\\u202egnp.exe'\\x1b[2J"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("hostile")) as running:
        yield running


def azmc(stack: Stack, *argv: str) -> Result:
    return CliRunner().invoke(app, [*argv, "--temporal-address", stack.address], env={"AZMC_CODEC_KEYS": CODEC_KEYS})


def _apply(stack: Stack, name: str, file_name: str, tmp_path: Path) -> Result:
    path = tmp_path / file_name  # "[/x]..." is a folder "[" holding "x]...": the path reads "[/x]..."
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(spec(name).model_dump_json())
    return azmc(stack, "apply", "-f", str(path))


def _running(stack: Stack, wf_id: str) -> bool:
    async def check() -> bool:
        client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
        return await machines.execution_status(client, wf_id) == WorkflowExecutionStatus.RUNNING

    return asyncio.run(check())


def _one_line_refusal(result: Result) -> str:
    assert result.exit_code == 1, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    return lines[0]


HOSTILE_NAMES = [
    "x' OR AzmcMachine = 'other",
    "other' OR 'a'='a",
    "other\\",
    'other" OR "1"="1',
    "other\n",
    "other\u02bc",  # a modifier-letter apostrophe
    "\uff4fther",  # a fullwidth o
    "other%27",
    "azmc-demo/other' OR 'a'='a",
    "machine/azmc-demo/other/x",
    "azmc-demo') OR ('a'='a/other",
]


def test_hostile_names_never_reach_a_visibility_query(stack: Stack, tmp_path: Path) -> None:
    assert _apply(stack, "other", "other.json", tmp_path).exit_code == 0
    other = workflow_id(RG, "other")
    # The valid name resolves to the machine (once visibility has indexed it).
    wait_until(lambda: azmc(stack, "describe", "other").exit_code == 0, 30, "visibility to list `other`")

    for hostile in HOSTILE_NAMES:
        for command in ("describe", "delete"):
            line = _one_line_refusal(azmc(stack, command, hostile))
            assert "is not valid" in line or "is not NAME" in line, (command, hostile, line)
    line = _one_line_refusal(azmc(stack, "describe", "-g", "azmc-demo' OR 'a'='a", "other"))
    assert "resource group" in line and "is not valid" in line
    line = _one_line_refusal(azmc(stack, "get", "--pool", "x' OR 'a'='a"))
    assert "pool" in line and "is not valid" in line
    assert _running(stack, other)  # no hostile `delete` reached the other machine

    async def resolve_directly() -> None:
        client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
        assert await machines.resolve(client, "other") == other
        with pytest.raises(machines.MachineError, match="is not valid"):
            await machines.resolve(client, "x' OR AzmcMachine = 'other")

    asyncio.run(resolve_directly())


def test_markup_in_file_names_and_azure_messages_is_printed_as_text(stack: Stack, tmp_path: Path) -> None:
    name = "markup-vm"
    stack.emulator.control.add_fault(operation="networkInterfaces.put", name=f"{name}-nic", status=500,
                                     message=MARKUP + INVISIBLE, times=-1)  # fmt: skip
    applied = _apply(stack, name, "[/x]spec[bold].json", tmp_path)
    assert applied.exit_code == 0, applied.output

    def error_shown() -> bool:
        answer = azmc(stack, "describe", name, "--json")
        return answer.exit_code == 0 and "[/x] Azure said" in json.loads(answer.stdout)["last_error"]

    wait_until(error_shown, 60, "the injected Azure message in the machine's status")
    # Once shown, the error stays while the machine retries (a compensation's successes do not clear it).
    described = azmc(stack, "describe", name)
    assert described.exit_code == 0, described.output
    # As written: no markup, no emoji. The panel wraps long lines at spaces: read it as one line of words.
    words = " ".join(re.sub(r"[│╭╮╰╯─]", " ", described.stdout).split())
    assert "[/x] Azure said [bold]no[/bold] :x:" + SHOWN in words
    as_json = azmc(stack, "describe", name, "--json").stdout
    assert SHOWN in json.loads(as_json)["last_error"]  # the worker's error text itself is escaped
    assert not any(char in described.stdout + as_json for char in "\u202e\x1b")
    assert azmc(stack, "get").exit_code == 0

    bad = tmp_path / "[/x]bad[bold].json"
    bad.write_text("{}")  # the folder "[" exists since the apply above
    line = _one_line_refusal(azmc(stack, "apply", "-f", str(bad)))
    assert line.startswith(f"error: {bad}: ")
    missing = _one_line_refusal(azmc(stack, "apply", "-f", str(tmp_path / "[/x]nope.json")))
    assert "[/x]nope.json: cannot read" in missing
    stack.emulator.control.clear_faults()


@pytest.mark.parametrize("argv", [["describe", HOSTILE_NAMES[0]], ["delete", "x'"], ["get", "--pool", "a'b"],
                                  ["describe", "-g", "rg' OR 'a'='a", "vm1"], ["delete", "machine/rg/vm1\n"]])
def test_invalid_names_are_refused_before_any_connection(argv: list[str]) -> None:
    result = CliRunner().invoke(app, [*argv, "--temporal-address", "127.0.0.1:9"])  # nothing listens there
    line = _one_line_refusal(result)
    assert "is not valid" in line and "Temporal" not in line
