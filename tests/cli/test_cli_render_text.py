"""Every rendering of user or Azure text prints it as text, on a console that does parse markup (pure).

The CLI's consoles also turn markup off; these tests use rich's default console so that each
renderer is shown safe on its own (a Panel title or a spinner line parses markup on any console).
"""

import io
from datetime import UTC, datetime
from pathlib import Path

from rich.console import Console

from cli.demo.command import phases_table, summary
from cli.demo.scenario import DemoResult, MachineTrack
from cli.dev.command import stack_panel
from cli.machine.waiting import _progress
from cli.machines import AbandonedMachine, MachineRow
from cli.render import describe_view, machines_table
from cli.stack import StackConfig
from models.inventory import Inventory
from models.status import LastOperation, MachineStatus, OperationState, Phase, Stage
from tests.e2e.machines import spec

HOSTILE = "[/x] quota [bold]exceeded[/bold] :x: [link=http://evil]click[/link]"
NOW = datetime(2025, 1, 1, tzinfo=UTC)


def _render(renderable: object) -> str:
    console = Console(file=io.StringIO(), width=400, color_system=None)  # markup and emoji ON (rich's default)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


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
    assert HOSTILE in spinner.renderable.text.plain  # type: ignore[attr-defined]


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
