"""`azmc dev`: start the embedded stack, print where everything is, supervise until Ctrl-C."""

import time

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from cli.dev.exports import export_lines
from cli.errors import fail
from cli.processes import StackError, stop_on_signals
from cli.stack import DevStack, StackConfig
from cli.stack_keys import dev_keys_file
from workers.logs import setup_logging


def stack_panel(config: StackConfig) -> Panel:
    keys = dev_keys_file(config.state_dir)
    keys_note = ", codec-keys.json: the dev encryption key" if keys else ""
    return Panel(
        Text(  # paths and URLs are the user's text, not markup
            f"Temporal   {config.temporal_address}  (UI {config.ui_url})\n"
            f"Emulator   {config.emulator_url}  (time scale {config.time_scale:g}"
            + (f", guests boot {config.boot_seconds:g} s of Azure time" if config.boot_seconds else "") + ")\n"
            f"Worker     task queue azmc, metrics http://127.0.0.1:{config.metrics_port}/metrics\n"
            f"Codec      {config.codec_url}  (the UI decodes payloads through it)\n"
            f"State      {config.state_dir}/ (temporal.db, logs{keys_note})\n\n"
            "Try: azmc apply -f examples/machine.yaml; azmc get; azmc describe vm1; azmc delete vm1 --wait"
        ),
        title="azmc dev",
    )


def run_dev(config: StackConfig, console: Console) -> None:
    setup_logging()
    stop_on_signals()
    stack = DevStack(config)
    try:
        with console.status("starting Temporal, the emulator and a worker..."):
            stack.start()
        console.print(stack_panel(config))
        console.print("In another terminal, so that azmc and temporal use this stack:")
        for line in export_lines(config):
            console.print(Text(line), soft_wrap=True)  # one line each, as a shell takes it
        console.print("Ctrl-C stops everything.")
        while True:
            time.sleep(0.5)
            stack.check()
    except StackError as error:
        stack.stop()
        fail(str(error))
    except KeyboardInterrupt:
        console.print("stopping...")
    finally:
        stack.stop()
