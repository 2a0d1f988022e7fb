"""`azmc demo --pool`: on the running `azmc dev` stack (or one it starts), a pool's rolling update with a failed
VM creation healed, shown live; exit 0 only when the failure was healed and nothing is left."""

import time
import urllib.parse

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from cli.demo.command import show_scenario
from cli.demo.pool_scenario import PoolDemo, PoolDemoResult, demo_pool_spec
from cli.emulator_client import EmulatorControl
from cli.render import pool_view, shown
from cli.stack import StackConfig
from cli.stack_keys import dev_keys_file
from emulator.seed import SEED_SUBSCRIPTION
from models.pool import PoolStatus
from workers.connect import connect
from workers.settings import TASK_QUEUE, load_settings


def ui_link(config: StackConfig, pool: str) -> str:
    query = urllib.parse.quote(f"AzmcPool = '{pool}'")
    return f"{config.ui_url}/namespaces/default/workflows?query={query}"


def summary(result: PoolDemoResult) -> Group:
    machines = Table(title="per machine (phases as the demo saw them)", header_style="bold")
    machines.add_column("machine")
    machines.add_column("phases", overflow="fold")
    for name, seen in result.phases.items():
        machines.add_row(shown(name), shown(" > ".join(seen)))
    requests = Table(title="ARM requests the emulator served", header_style="bold")
    requests.add_column("operation")
    requests.add_column("count", justify="right")
    for operation, count in result.requests.items():
        requests.add_row(shown(operation), Text(str(count)))
    healed = (f"healed: {', '.join(result.hit)}: creation failed, compensated, created again, Running"
              if result.healed else "not healed: no machine whose creation failed ran afterwards")
    left = len(result.leftovers)
    verdict = Text(f"emulator: {left} resources left" + ("" if left else " (zero leftovers)"),
                   style="bold green" if result.ok else "bold red")
    return Group(machines, Text(healed, style="bold green" if result.healed else "bold red"), requests, verdict)


async def _run(config: StackConfig, interactive: bool, console: Console) -> tuple[PoolDemoResult, str]:
    settings = load_settings(temporal_address=config.temporal_address, temporal_namespace="default",
                             codec_keys_file=dev_keys_file(config.state_dir))
    client = await connect(settings)
    emulator = EmulatorControl(config.emulator_url)
    spec = demo_pool_spec(SEED_SUBSCRIPTION)
    console.print(Text(f"applying pool {spec.name} ({spec.replicas} machines), then a rolling update to a new "
                       "revision whose first new VM creation fails with InternalExecutionError"))
    started = time.monotonic()
    live = Live(Text("starting..."), console=console, refresh_per_second=8) if interactive else None

    def on_change(status: PoolStatus, lines: list[str]) -> None:
        if live is not None:
            live.update(pool_view(status, f"pool/{status.resource_group}/{status.name}"))
            return
        for line in lines:  # Azure's and the pool's text: printed as text, never markup
            console.print(shown(f"{time.monotonic() - started:6.1f}s {line}"))

    demo = PoolDemo(client, emulator, spec, TASK_QUEUE, on_change)
    if live is None:
        return await demo.run(), spec.name
    with live:
        return await demo.run(), spec.name


def run_pool_demo_command(config: StackConfig, interactive: bool, console: Console) -> None:
    async def scenario() -> tuple[PoolDemoResult, str]:
        result, pool = await _run(config, interactive, console)
        return result, ui_link(config, pool)

    show_scenario(config, interactive, console, scenario, summary,
                  "the pool demo did not heal its failed machine, or left resources behind")
