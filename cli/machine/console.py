"""`azmc describe NAME --console`: the serial console log's tail, read from Azure with the worker's Azure settings
(AZMC_AZURE_*); the machine is named RESOURCE_GROUP/NAME or NAME with -g."""

from temporalio.exceptions import ApplicationError

from cli.errors import run_friendly, settings_or_exit
from cli.machines import MachineError, machine_of, machine_ref
from models.visible_text import visible
from workers.worker import azure_config


def print_console(name: str, resource_group: str, lines: int) -> None:
    settings = settings_or_exit()

    async def main() -> None:
        from activities.boot_console import ConsoleError, serial_log_tail
        from activities.clients import build_clients

        found = machine_of(machine_ref(name, resource_group) or "")
        if found is None:
            raise MachineError("--console needs the machine's resource group: RESOURCE_GROUP/NAME or -g")
        rg, vm = found
        clients = build_clients(azure_config(settings))
        try:
            text = await serial_log_tail(clients, rg, vm, lines)
        except (ConsoleError, ApplicationError) as error:  # Azure's refusal (boot diagnostics off), in one line
            raise MachineError(str(error)) from None
        finally:
            await clients.close()
        # The guest writes this log: its escape sequences and controls are shown, never obeyed by the terminal.
        print(visible(text.replace("\r\n", "\n"), keep_newlines=True))

    run_friendly(main)
