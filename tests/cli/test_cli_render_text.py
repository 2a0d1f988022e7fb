"""Every rendering of user or Azure text prints it as text, on a console that does parse markup, with its invisible
characters escaped (pure).

The CLI's consoles also turn markup off; these tests use rich's default console so that each
renderer is shown safe on its own (a Panel title or a spinner line parses markup on any console).
"""

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
import typer
from rich.console import Console

from cli.demo.command import phases_table, summary
from cli.demo.scenario import DemoResult, MachineTrack
from cli.dev.command import stack_panel
from cli.errors import fail
from cli.machine.waiting import _progress
from cli.machines import AbandonedMachine, MachineRow
from cli.render import describe_view, machines_table, pool_view
from cli.stack import StackConfig
from models.inventory import Inventory
from models.pool import PoolMachine, PoolStatus
from models.status import LastOperation, MachineStatus, OperationState, Phase, Stage
from models.visible_text import visible_json
from tests.e2e.machines import spec

HOSTILE = "[/x] quota [bold]exceeded[/bold] :x: [link=http://evil]click[/link]"
NOW = datetime(2025, 1, 1, tzinfo=UTC)


def _render(renderable: object) -> str:
    console = Console(file=io.StringIO(), width=400, color_system=None)  # markup and emoji ON (rich's default)
    console.print(renderable)
    return console.file.getvalue()


def _status() -> MachineStatus:
    operation = LastOperation(stage=Stage.CREATE, state=OperationState.FAILED, description=HOSTILE, updated_at=NOW)
    return MachineStatus(name="vm1", resource_group="rg", pool="p", phase=Phase.CREATING, last_operation=operation,
                         recent_operations=[operation], last_error=HOSTILE,
                         inventory=Inventory(nic_names=["vm1-nic"]))  # fmt: skip


def test_describe_view_prints_azure_messages_as_written() -> None:
    out = _render(describe_view(_status(), "machine/rg/vm1"))
    assert out.count(HOSTILE) >= 3  # last operation, last error, recent operations


def test_get_table_prints_names_and_abandoned_inventory_as_written() -> None:
    rows = [MachineRow(name="vm1", resource_group="[/x]", phase="Running", pool="[bold]", started=NOW,
                       status="Running", workflow_id="machine/[/x]/vm1")]  # fmt: skip
    abandoned = [AbandonedMachine(name="[/x]vm", resource_group="rg[bold]", pool="",
                                  inventory=Inventory(nic_names=["[/x]-nic"], disk_names=["d[/b]"]),
                                  workflow_id="machine/rg/x")]  # fmt: skip
    out = _render(machines_table(rows, show_status=True, abandoned=abandoned))
    for text in ("[/x]", "[bold]", "[/x]vm", "rg[bold]", "NIC [/x]-nic", "disks d[/b]", "Abandoned"):
        assert text in out, text


def test_progress_line_of_a_wait_spinner_is_text() -> None:
    console = Console(file=io.StringIO(), force_terminal=True, width=400)
    with console.status("creating...") as spinner:
        spinner.update(_progress(_status()))
    assert HOSTILE in spinner.renderable.text.plain


def test_dev_panel_with_a_state_dir_holding_markup(tmp_path: Path) -> None:
    state_dir = tmp_path / "[/x]state"  # the panel makes the dev key file there: never in the checkout
    assert "[/x]state" in _render(stack_panel(StackConfig(state_dir=state_dir)))


def test_demo_tables_print_azure_errors_as_written() -> None:
    track = MachineTrack(spec=spec("demo-1"), wf_id="machine/azmc-demo/demo-1", status=_status(),
                         errors=[HOSTILE[:60]], azure_errors=[HOSTILE], notes=["[/x] note"])  # fmt: skip
    assert HOSTILE[:60] in _render(phases_table([track]))
    out = _render(summary(DemoResult(tracks=[track], leftovers=[], requests={"[/x] GET": 1}, seconds=1.0)))
    assert HOSTILE in out and "[/x] note" in out and "[/x] GET" in out


def test_describe_shows_what_another_owner_holds_under_the_machines_names() -> None:
    status = MachineStatus(name="vm1", resource_group="azmc-demo", phase=Phase.DELETED,
                           inventory=Inventory(not_ours=["VM vm1", "NIC vm1-nic"]))
    text = _render(describe_view(status, "machine/azmc-demo/vm1"))
    assert "nothing of it exists in Azure" in text and "not ours, left alone: VM vm1, NIC vm1-nic" in text


# Invisible characters in a name or Azure's text: a right-to-left override reorders what follows it, an escape
# sequence drives the terminal (this one clears it), a newline fakes a second line. Shown, never obeyed.
INVISIBLE = "name 'x\u202egnp.exe'\x1b[2J\nPhase Running\u2066"
SHOWN = "name 'x\\u202egnp.exe'\\x1b[2J\\nPhase Running\\u2066"


def _obeys_nothing(out: str) -> None:
    assert not any(char in out for char in "\u202e\u2066\x1b"), repr(out)


def test_every_view_shows_invisible_characters_escaped() -> None:
    operation = LastOperation(stage=Stage.CREATE, state=OperationState.FAILED, description=INVISIBLE, updated_at=NOW)
    status = MachineStatus(name="vm\u202e1", resource_group="rg", pool="p", phase=Phase.CREATING,
                           last_operation=operation, recent_operations=[operation], last_error=INVISIBLE,
                           inventory=Inventory(nic_names=["vm1-nic\x1b[31m"]))  # fmt: skip
    out = _render(describe_view(status, "machine/rg/vm\u202e1"))
    _obeys_nothing(out)
    words = " ".join(out.replace("│", " ").split())
    assert words.count(SHOWN) >= 3 and "machine/rg/vm\\u202e1" in words and "vm1-nic\\x1b[31m" in words
    assert "Inventory" in out and "NICs:" in out  # the inventory keeps its own lines

    rows = [MachineRow(name="vm\u202e1", resource_group="rg\x1b", phase="Running", pool="p\u2066", started=NOW,
                       status=INVISIBLE, workflow_id="machine/rg/vm1")]  # fmt: skip
    out = _render(machines_table(rows, show_status=True))
    _obeys_nothing(out)
    assert "vm\\u202e1" in out and "rg\\x1b" in out and "p\\u2066" in out

    pool = PoolStatus(name="web", resource_group="rg", summary=INVISIBLE, rollout_message=INVISIBLE,
                      machines=[PoolMachine(name="web-\u202eabc", revision="r1", phase=Phase.RUNNING)])
    out = _render(pool_view(pool, "pool/rg/web"))
    _obeys_nothing(out)
    assert "web-\\u202eabc" in out


def test_a_wait_spinner_and_an_error_line_show_them_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    status = MachineStatus(name="vm1", resource_group="rg", phase=Phase.CREATING, last_operation=LastOperation(
        stage=Stage.CREATE, state=OperationState.FAILED, description=INVISIBLE, updated_at=NOW))
    assert _progress(status).plain == f"vm1 Creating - {Stage.CREATE}: {SHOWN}"
    with pytest.raises(typer.Exit):
        fail(f"cannot read {INVISIBLE}")
    err = capsys.readouterr().err
    _obeys_nothing(err)
    assert SHOWN in err and len(err.strip().splitlines()) == 1


def test_json_answers_carry_the_same_text_with_invisible_characters_as_json_escapes() -> None:
    status = MachineStatus(name="vm1", resource_group="rg", phase=Phase.FAILED, last_error=INVISIBLE + "\u00a0ü")
    document = visible_json(status.model_dump_json(indent=2))
    _obeys_nothing(document)
    assert "\\u202e" in document and "ü" in document  # printable letters stay as they are
    assert MachineStatus.model_validate_json(document) == status  # the same answer, read by any JSON parser
