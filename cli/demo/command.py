"""`azmc demo`: reuse a running `azmc dev` stack or start one, run the scenario, show it, print the summary."""

import asyncio
import contextlib
import time
import urllib.parse
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, Protocol, TypeVar

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from cli.demo.scenario import DEMO_POOL, DemoResult, DemoScenario, MachineTrack, demo_specs
from cli.emulator_client import EmulatorControl
from cli.errors import fail
from cli.processes import StackError, stop_on_signals, tcp_open
from cli.render import phase_text, shown
from cli.stack import DevStack, StackConfig
from cli.stack_keys import dev_keys_file
from emulator.seed import SEED_SUBSCRIPTION
from models.inventory import Inventory
from workers.connect import connect
from workers.settings import TASK_QUEUE, SettingsError, load_settings


def _short_inventory(inventory: Inventory) -> str:
    if inventory.is_empty:
        return "nothing"
    vm = "VM" if inventory.has_vm else "no VM"
    return f"{vm}, {len(inventory.nic_names)} NIC, {len(inventory.disk_names)} disks"


def phases_table(tracks: list[MachineTrack]) -> Table:
    table = Table(title="azmc demo", header_style="bold")
    for column in ("machine", "phase", "attempts", "stage", "inventory", "last error"):
        table.add_column(column, overflow="fold")
    for track in tracks:
        status = track.status
        operation = status.last_operation if status else None
        table.add_row(
            Text(track.spec.name),
            phase_text(track.phase),
            Text(str(status.attempts if status else 0)),
            Text(f"{operation.stage} {operation.state}" if operation else "-"),
            Text(_short_inventory(status.inventory) if status else "-"),
            shown((track.errors[-1] if track.errors else "")[:70], style="yellow"),
        )
    return table


def ui_link(config: StackConfig) -> str:
    query = urllib.parse.quote(f"AzmcPool = '{DEMO_POOL}'")
    return f"{config.ui_url}/namespaces/default/workflows?query={query}"


def _compact(stages: list[str]) -> str:
    """"A > B > A > B > C" as "(A > B) x2 > C": retries read as repetitions, not as a wall of text."""
    out: list[str] = []
    index = 0
    while index < len(stages):
        for width in range(min(6, len(stages) - index), 0, -1):
            cycle = stages[index : index + width]
            repeats = 1
            while stages[index + repeats * width : index + (repeats + 1) * width] == cycle:
                repeats += 1
            if repeats > 1 or width == 1:
                break
        label = " > ".join(cycle)
        out.append(f"({label}) x{repeats}" if repeats > 1 and width > 1 else f"{label} x{repeats}" if repeats > 1
                   else label)  # fmt: skip
        index += width * repeats
    return " > ".join(out)


def summary(result: DemoResult) -> Group:
    machines = Table(title="per machine", header_style="bold")
    for column in ("machine", "final phase", "VM creations", "stages", "final inventory"):
        machines.add_column(column, overflow="fold")
    for track in result.tracks:
        status = track.status
        machines.add_row(
            Text(track.spec.name), phase_text(track.phase), Text(str(track.vm_create_attempts)),
            shown(_compact(track.stages)), Text(_short_inventory(status.inventory) if status else "-"),
        )  # fmt: skip
    events = [shown(f"{track.spec.name}: {line[:200]}", style="yellow") for track in result.tracks
              for line in [*track.azure_errors, *track.notes]]  # fmt: skip
    requests = Table(title="ARM requests the emulator served", header_style="bold")
    requests.add_column("operation")
    requests.add_column("count", justify="right")
    for operation, count in result.requests.items():
        requests.add_row(shown(operation), Text(str(count)))
    leftover = len(result.leftovers)
    verdict = Text(
        f"emulator: {leftover} resources left" + ("" if leftover else " (zero leftovers)"),
        style="bold green" if result.ok else "bold red",
    )
    title = Text("Azure errors met on the way (from the workflow histories), and the demo's own moves:", style="bold")
    return Group(machines, title, *events,
                 requests, verdict)  # fmt: skip


@contextlib.contextmanager
def demo_stack(config: StackConfig, console: Console) -> Iterator[bool]:
    """Use `azmc dev`'s stack if it runs on these ports, else start one; yields True when the stack is ours."""
    temporal_up = tcp_open(config.temporal_port)
    emulator_up = EmulatorControl(config.emulator_url).healthy()
    if temporal_up and emulator_up:
        console.print(Text(f"using the running stack at {config.temporal_address} and {config.emulator_url}"))
        yield False
        return
    if temporal_up or emulator_up:
        busy = config.temporal_port if temporal_up else config.emulator_port
        raise StackError(f"port {busy} is in use by something that is not azmc dev; stop it or pass other ports")
    stack = DevStack(config)
    with console.status("starting Temporal, the emulator and a worker..."):
        stack.start()
    try:
        yield True
    finally:
        stack.stop()


async def _run(config: StackConfig, count: int, interactive: bool, console: Console) -> DemoResult:
    settings = load_settings(temporal_address=config.temporal_address, temporal_namespace="default",
                             codec_keys_file=dev_keys_file(config.state_dir))
    client = await connect(settings)
    emulator = EmulatorControl(config.emulator_url)
    specs = demo_specs(count, SEED_SUBSCRIPTION, float(emulator.settings()["time_scale"]))
    console.print(Text(f"applying {count} machines; {specs[1].name}'s VM creation will fail with AllocationFailed"))
    started = time.monotonic()

    live = Live(phases_table([]), console=console, refresh_per_second=8) if interactive else None

    def on_change(tracks: list[MachineTrack], changed: MachineTrack | None) -> None:
        if live is not None:
            live.update(phases_table(tracks))
        elif changed is not None and changed.status is not None:
            operation = changed.status.last_operation
            detail = f"{operation.stage} {operation.state}: {operation.description}" if operation else ""
            line = f"{time.monotonic() - started:6.1f}s {changed.spec.name:<14} {changed.phase:<16} {detail}"
            console.print(shown(line))  # Azure's messages are text, not markup

    scenario = DemoScenario(client, emulator, specs, TASK_QUEUE, on_change)
    if live is None:
        return await scenario.run()
    with live:
        return await scenario.run()


Outcome = TypeVar("Outcome", bound="_Outcome")


class _Outcome(Protocol):
    @property
    def ok(self) -> bool: ...

    @property
    def seconds(self) -> float: ...


def show_scenario(config: StackConfig, interactive: bool, console: Console,
                  scenario: Callable[[], Coroutine[Any, Any, tuple[Outcome, str]]], render: Callable[[Outcome], Any],
                  failure: str) -> None:
    """Run a demo scenario (its outcome and the UI link to look at) on the demo stack, print its summary;
    a stack the demo started stays up, interactive, until Ctrl-C; exit non-zero with `failure` unless ok."""
    stop_on_signals()
    result: Outcome | None = None
    try:
        with demo_stack(config, console) as stack_is_ours:
            result, link = asyncio.run(scenario())
            console.print(render(result))
            console.print(Text(f"finished in {result.seconds:.1f}s; see it in the Temporal UI: {link}"),
                          soft_wrap=True)
            if stack_is_ours and interactive:
                # The UI link is only worth printing if the UI is still there to look at.
                console.print("the stack stays up so you can browse the UI; press Ctrl-C to stop it")
                _wait_for_ctrl_c()
    except (StackError, SettingsError, TimeoutError) as error:
        fail(str(error))
    except KeyboardInterrupt:
        if result is None:
            fail("interrupted; the stack this demo started is stopped", code=130)
        console.print("stack stopped")
    if result is None or not result.ok:
        fail(failure)


def run_demo_command(config: StackConfig, count: int, interactive: bool, console: Console) -> None:
    async def scenario() -> tuple[DemoResult, str]:
        return await _run(config, count, interactive, console), ui_link(config)

    show_scenario(config, interactive, console, scenario, summary,
                  "the demo left resources behind or a machine did not reach Deleted")


def _wait_for_ctrl_c() -> None:
    while True:
        time.sleep(3600)
