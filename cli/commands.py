"""`azmc`: run the worker, the embedded dev stack and demo, and manage machines from the command line.

Each command only parses flags and hands over to the module that does the job.
"""

import importlib.util
import json
import os
import runpy
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from cli import machines
from cli.codec_server import codec_server
from cli.deployment.commands import deployment_app
from cli.errors import fail, run_friendly, settings_or_exit
from cli.machine.commands import delete, describe
from cli.options import HELP_MARKUP, Namespace, TemporalAddress, setting_option
from cli.pool.commands import apply_pool_document, pool_app
from cli.render import console, machines_table, shown
from cli.spec_file import SpecError, load_document
from cli.stack import StackConfig
from cli.sweep.schedule import schedule_app
from models.schema import spec_json_schema
from models.spec import MachineSpec
from workers.connect import connect
from workers.settings import Settings
from workers.settings_table import in_brackets

app = typer.Typer(
    rich_markup_mode=HELP_MARKUP,
    help="azmc keeps Azure virtual machines alive and clean, one durable Temporal workflow per machine.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(schedule_app, name="schedule")
app.add_typer(pool_app, name="pool")
app.add_typer(deployment_app, name="deployment")

SweepInterval = Annotated[str | None, setting_option("sweep_interval")]
OrphanGrace = Annotated[str | None, setting_option("orphan_grace")]
MaxOrphanDeletions = Annotated[int | None, setting_option("max_orphan_deletions")]


def _client_settings(address: str | None, namespace: str | None) -> Settings:
    return settings_or_exit(temporal_address=address, temporal_namespace=namespace)


@app.command()
def worker(
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
    task_queue: Annotated[str | None, setting_option("task_queue")] = None,
    metrics_port: Annotated[int | None, setting_option("metrics_port", "Prometheus port, 0 = off")] = None,
    azure_endpoint: Annotated[str | None, setting_option(
        "azure_endpoint", "ARM endpoint (loopback = the emulator); unset = the cloud's ARM")] = None,
    azure_subscription_id: Annotated[str | None, setting_option("azure_subscription_id")] = None,
    azure_cloud: Annotated[str | None, setting_option("azure_cloud")] = None,
    tls_cert: Annotated[Path | None, setting_option("temporal_tls_cert", "mTLS client certificate")] = None,
    tls_key: Annotated[Path | None, setting_option("temporal_tls_key", "mTLS client key")] = None,
    tls_ca: Annotated[Path | None, setting_option("temporal_tls_ca", "the server's CA certificate")] = None,
    tls_server_name: Annotated[str | None, setting_option(
        "temporal_tls_server_name", "the name in the server's certificate")] = None,
    log_format: Annotated[str | None, setting_option("log_format", "one event per line")] = None,
    log_level: Annotated[str | None, setting_option(
        "log_level", "info: phases and outcomes; debug: every step as it starts")] = None,
    ensure_schedule: Annotated[bool | None, setting_option(
        "ensure_schedule", "create or update the fleet sweep's schedule at start")] = None,
    sweep_interval: SweepInterval = None,
    orphan_grace: OrphanGrace = None,
    max_orphan_deletions: MaxOrphanDeletions = None,
) -> None:
    """Run a worker on task queue `azmc` (the API key comes only from AZMC_TEMPORAL_API_KEY)."""
    settings = settings_or_exit(
        temporal_address=temporal_address, temporal_namespace=namespace, task_queue=task_queue,
        metrics_port=metrics_port, azure_endpoint=azure_endpoint, azure_subscription_id=azure_subscription_id,
        azure_cloud=azure_cloud, temporal_tls_cert=tls_cert, temporal_tls_key=tls_key, temporal_tls_ca=tls_ca,
        temporal_tls_server_name=tls_server_name, log_format=log_format, log_level=log_level,
        ensure_schedule=ensure_schedule,
        sweep_interval=sweep_interval, orphan_grace=orphan_grace, max_orphan_deletions=max_orphan_deletions,
    )  # fmt: skip
    from workers.logs import setup_logging
    from workers.worker import run_worker  # imports the SDKs: only once the settings are known to be usable

    setup_logging(settings.log_format, settings.log_level)
    run_friendly(lambda: run_worker(settings))


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []})
def emulator(ctx: typer.Context) -> None:
    """Run the Azure Resource Manager emulator (same flags as `python -m emulator`; try `azmc emulator --help`)."""
    if importlib.util.find_spec("emulator.app") is None:  # the production image holds only its seeded names
        fail("the Azure emulator is not in this installation (the azmc image leaves it out): build its own image, "
             "`docker build --target emulator .`, or install azmc from a checkout (`make install`)")
    sys.argv = ["azmc emulator", *ctx.args]
    runpy.run_module("emulator", run_name="__main__", alter_sys=True)


# The embedded stack's options, shared by `dev` and `demo`; defaults are StackConfig's.
_STACK = StackConfig()
TemporalPort = Annotated[int, typer.Option(help="the Temporal dev server's port")]
UiPort = Annotated[int, typer.Option(help="the Temporal UI's port")]
EmulatorPort = Annotated[int, typer.Option(help="the Azure emulator's port")]
MetricsPort = Annotated[int, typer.Option(help="the worker's Prometheus port (0 = off)")]
CodecPort = Annotated[int, typer.Option(help="the codec server the UI decodes payloads through")]
StateDir = Annotated[Path, typer.Option(help="where the dev server keeps its database and the logs")]


@app.command()
def dev(
    temporal_port: TemporalPort = _STACK.temporal_port,
    ui_port: UiPort = _STACK.ui_port,
    emulator_port: EmulatorPort = _STACK.emulator_port,
    metrics_port: MetricsPort = _STACK.metrics_port,
    codec_port: CodecPort = _STACK.codec_port,
    state_dir: StateDir = _STACK.state_dir,
    time_scale: Annotated[float, typer.Option(help="emulator speed: 1 = Azure's pace, 0 = instant")] = (
        _STACK.time_scale
    ),
    boot_seconds: Annotated[float, typer.Option(
        min=0, help="seconds a VM's guest boots after each start or restart before its VM agent is Ready (Azure's "
                    "time: scaled by --time-scale); 0 = at once")] = _STACK.boot_seconds,
) -> None:
    """Start Temporal (UI on :8233), the emulator and a worker together; Ctrl-C stops them all."""
    from cli.dev.command import run_dev

    config = StackConfig(temporal_port, ui_port, emulator_port, metrics_port, state_dir, time_scale,
                         worker_to_console=True, codec_port=codec_port, boot_seconds=boot_seconds)  # fmt: skip
    run_dev(config, console)


@app.command()
def demo(
    temporal_port: TemporalPort = _STACK.temporal_port,
    ui_port: UiPort = _STACK.ui_port,
    emulator_port: EmulatorPort = _STACK.emulator_port,
    metrics_port: MetricsPort = _STACK.metrics_port,
    codec_port: CodecPort = _STACK.codec_port,
    state_dir: StateDir = _STACK.state_dir,
    time_scale: Annotated[float, typer.Option(help="emulator speed when the demo starts its own stack")] = 0.05,
    machines_count: Annotated[int, typer.Option("--machines", min=2, max=20)] = 4,
    pool: Annotated[bool, typer.Option("--pool", help="a pool's rolling update with a failed creation healed")] = False,
    non_interactive: Annotated[
        bool | None, typer.Option("--non-interactive/--interactive", help="plain log lines (default when no TTY)")
    ] = None,
) -> None:
    """Watch machines being created (one fails and recovers), then deleted; exit 0 only with zero leftovers.
    `--pool`: a pool's rolling update in which one new machine fails and is replaced."""
    from cli.demo.command import run_demo_command

    config = StackConfig(temporal_port, ui_port, emulator_port, metrics_port, state_dir, time_scale,
                         codec_port=codec_port)
    interactive = console.is_terminal if non_interactive is None else not non_interactive
    if pool:
        from cli.demo.pool_command import run_pool_demo_command

        run_pool_demo_command(config, interactive, console)
        return
    run_demo_command(config, machines_count, interactive, console)


@app.command()
def apply(
    file: Annotated[Path, typer.Option("--file", "-f", help="a Machine (default) or MachinePool, JSON or YAML")],
    wait: Annotated[bool, typer.Option(help="wait until the machine is Running")] = False,
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """Create a machine (or, `kind: MachinePool`, a pool): validate locally, then start its workflow or update it."""
    try:
        spec = load_document(file)
    except SpecError as error:
        fail(str(error))
    settings = _client_settings(temporal_address, namespace)
    if not isinstance(spec, MachineSpec):
        apply_pool_document(spec, settings, console)
        return

    async def main() -> None:
        client = await connect(settings)
        applied = await machines.apply(client, spec, settings.task_queue)
        console.print(shown(applied.line(spec)))
        if wait:
            from cli.machine.waiting import wait_running

            await wait_running(client, applied.workflow_id, console)

    run_friendly(main)


@app.command()
def get(
    all_: Annotated[bool, typer.Option("--all", "-a", help="include deleted machines")] = False,
    pool: Annotated[str, typer.Option(help="only machines of this pool")] = "",
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """List machines (from Temporal visibility): name, phase, pool, age; and abandoned ones found in Azure."""
    from cli.machine import abandoned  # reads Azure with the SDK: imported only for `get`
    from cli.machine.ages import since_first_started

    settings = _client_settings(temporal_address, namespace)

    async def main() -> None:
        machines.visibility_query(open_only=True, pool=pool)  # a pool that is not valid is refused before connecting
        azure = abandoned.azure_config_or_none(settings)
        client = await connect(settings)
        rows = await since_first_started(client, await machines.list_machines(client, include_closed=all_, pool=pool),
                                         pool)
        left = await abandoned.abandoned_or_note(client, azure, rows, pool)
        if not rows and not left:
            console.print("no machines; create one with `azmc apply -f spec.json`")
            return
        console.print(machines_table(rows, show_status=all_, abandoned=left))
        if left:
            console.print(Text(abandoned.HINT))

    run_friendly(main)


@app.command()
def orphans(
    delete: Annotated[bool, typer.Option("--delete", help="run one sweep now: delete what it finds")] = False,
    orphan_grace: OrphanGrace = None,
    max_orphan_deletions: MaxOrphanDeletions = None,
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """What the fleet sweep would delete and why (a dry run); `--delete` runs one sweep now."""
    from cli.sweep.orphans import headline, orphans_table, sweep_now

    settings = settings_or_exit(temporal_address=temporal_address, temporal_namespace=namespace,
                         orphan_grace=orphan_grace, max_orphan_deletions=max_orphan_deletions)

    async def main() -> None:
        report = await sweep_now(await connect(settings), settings, delete)
        console.print(shown(headline(report, delete)))
        if report.capped:
            console.print(shown(f"safety cap: {report.capped}"))
        if report.deleted or report.would_delete or report.skipped:
            console.print(orphans_table(report))

    run_friendly(main)


app.command()(describe)
app.command()(delete)
app.command("codec-server")(codec_server)


@app.command()
def trace(
    machine: Annotated[str, typer.Argument(help="RESOURCE_GROUP/NAME (or NAME)")],
    last: Annotated[int, typer.Option(help="how many of its operations, the latest last", min=1)] = 3,
    file: Annotated[Path | None, typer.Option(help="the spans a worker keeps (default: $AZMC_TRACE_FILE, else "
                                                   "azmc dev's .azmc/traces.jsonl)")] = None,
) -> None:
    """A machine's last operations as trees with durations: steps, activities, ARM requests (status codes, request
    ids) and waits, from the spans the worker keeps (`azmc dev`: docs/observability.md)."""
    from cli.machine.trace import DEFAULT_FILE, operations, read_spans, render

    path = file or Path(os.environ.get("AZMC_TRACE_FILE") or DEFAULT_FILE)
    if not path.exists():
        fail(f"no spans at {path}: traces are kept by a worker started with AZMC_TRACE_FILE (azmc dev sets it); "
             "with OTEL_EXPORTER_OTLP_ENDPOINT they go to your collector instead")
    roots = operations(read_spans(path), machine, last)
    if not roots:
        fail(f"no operation of {machine} in {path} (a machine's operations are written as they end)")
    for line in render(roots):
        console.print(Text(line), soft_wrap=True)


@app.command()
def offerings(
    location: Annotated[str, typer.Option("--location", "-l", help="the Azure location, e.g. westeurope")],
    subscription: Annotated[str | None, typer.Option(
        help=f"default: the worker's {in_brackets('azure_subscription_id')}")] = None,
    as_json: Annotated[bool, typer.Option("--json", help='print {"refusals": [...], "probes": [...]} as JSON')]
    = False,
    forget: Annotated[bool, typer.Option("--forget", help="capacity is back: drop every refusal and probe")] = False,
    sizes: Annotated[str, typer.Option("--sizes", help="comma-separated VM sizes: each one's hourly price (regular "
                                                         "and Spot), Spot eviction bucket and state")] = "",
    reservation_group: Annotated[str, typer.Option(
        "--reservation-group", help="id of a capacity reservation group: what it reserves and has free per size and "
                                    "zone (machines naming it try those first)")] = "",
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """What Azure refused recently in a location (size, zone, priority) and until when machines skip it; which
    offerings machines are trying now, and who (machines needing them wait for the outcome); with --sizes their
    prices and Spot eviction buckets."""
    settings = _client_settings(temporal_address, namespace)

    async def main() -> None:
        from datetime import UTC, datetime

        from cli.offerings import (
            current_probes,
            current_refusals,
            forget_refusals,
            forgotten_line,
            prices_table,
            probes_table,
            read_group_room,
            read_offering_prices,
            refusals_table,
            reserved_table,
        )

        wanted = [s.strip() for s in sizes.split(",") if s.strip()]

        now = datetime.now(UTC)
        client, place = await connect(settings), subscription or settings.subscription()
        if forget:
            console.print(shown(forgotten_line(await forget_refusals(client, place, location), location)))
            return
        found = await current_refusals(client, place, location, now)
        probes = await current_probes(client, place, location, now)
        if as_json:
            answer: dict[str, Any] = {"refusals": [r.model_dump(mode="json") for r in found],
                      "probes": [p.model_dump(mode="json") for p in probes]}
            if wanted:
                answer["prices"] = (await read_offering_prices(location, wanted)).model_dump(mode="json")
            if reservation_group:
                answer["reserved"] = (await read_group_room(reservation_group)).model_dump(mode="json")
            print(json.dumps(answer, indent=2))
            return
        if found:
            console.print(refusals_table(found, now))
        else:
            console.print(shown(f"nothing refused in {location}"
                               + ("" if probes else ": every offering may be tried")))
        if probes:
            console.print(Text("being tried now (machines needing these offerings wait for the outcome):"))
            console.print(probes_table(probes, now))
        if wanted:
            console.print(prices_table(wanted, await read_offering_prices(location, wanted), found, probes, location))
        if reservation_group:
            console.print(reserved_table(reservation_group, await read_group_room(reservation_group)))

    run_friendly(main)


@app.command()
def schema() -> None:
    """Print the JSON Schema of MachineSpec (the input of `azmc apply` and of the workflow)."""
    print(json.dumps(spec_json_schema(), indent=2))


def main() -> None:
    """The `azmc` console script: the typer app, then an exit that skips interpreter teardown.

    Temporal's Rust client threads can crash CPython's finalization after a short-lived client
    command ("PyGILState_Release ... must be current", temporalio/sdk-python#300); every command has
    finished and cleaned up by now, so ending the process directly is safe.
    """
    try:
        app(prog_name="azmc")
        code: object = 0
    except SystemExit as done:
        code = done.code
    if isinstance(code, str):
        print(code, file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code if isinstance(code, int) else (0 if code is None else 1))


if __name__ == "__main__":  # pragma: no cover
    main()
