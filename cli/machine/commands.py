"""`azmc describe` and `azmc delete`: one machine, named as the user knows it (registered in cli/commands.py)."""

from collections.abc import Awaitable, Callable
from typing import Annotated

import typer
from temporalio.client import Client

from cli import machines
from cli.errors import run_friendly, settings_or_exit
from cli.options import Namespace, ResourceGroup, TemporalAddress
from cli.render import console, describe_view, shown
from models.status import MachineStatus
from models.visible_text import visible_json
from workers.connect import connect

MachineName = Annotated[str, typer.Argument(help="NAME, RESOURCE_GROUP/NAME or the workflow id")]


def _on_machine(name: str, resource_group: str, address: str | None, namespace: str | None,
                act: Callable[[Client, str], Awaitable[None]]) -> None:
    """Run `act` with a client and the machine's workflow id; a name that is not valid is refused before
    connecting, and every error is one line (run_friendly). The machine's twin of cli/pool's `_on_pool`."""
    settings = settings_or_exit(temporal_address=address, temporal_namespace=namespace)

    async def main() -> None:
        machines.machine_ref(name, resource_group)
        client = await connect(settings)
        await act(client, await machines.resolve(client, name, resource_group))

    run_friendly(main)


def describe(
    name: MachineName,
    resource_group: ResourceGroup = "",
    as_json: Annotated[bool, typer.Option("--json", help="print the raw status query answer")] = False,
    requests: Annotated[bool, typer.Option("--requests", help="every Azure request azmc made (from history)")] = False,
    console_log: Annotated[bool, typer.Option("--console", help="the tail of the VM's serial console log (boot "
                                                                 "diagnostics; reads Azure, not Temporal)")] = False,
    lines: Annotated[int, typer.Option("--lines", min=1, help="how many lines of the console log")] = 50,
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """Show a machine's phase, health, last operation, inventory and recent operations (the `status` query)."""
    if console_log:
        from cli.machine.console import print_console

        print_console(name, resource_group, lines)
        return

    async def show(client: Client, wf_id: str) -> None:
        if requests:
            from cli.machine.audit_trail import attempts_json, read_attempts, requests_table

            attempts = await read_attempts(client, wf_id)
            print(visible_json(attempts_json(attempts))) if as_json else console.print(requests_table(attempts))
            return
        await machines.check_answering(client, wf_id)
        if as_json:  # the machine's own answer, waited for: a script reads every field of it
            print(visible_json((await machines.status(client, wf_id)).model_dump_json(indent=2)))
            return
        from cli.machine.answered import status_or_view

        status = await status_or_view(client, wf_id)
        console.print(describe_view(status, wf_id) if isinstance(status, MachineStatus) else status)

    _on_machine(name, resource_group, temporal_address, namespace, show)


def delete(
    name: MachineName,
    resource_group: ResourceGroup = "",
    force: Annotated[bool, typer.Option(help="skip the graceful drain and force-delete the VM")] = False,
    wait: Annotated[bool, typer.Option(help="wait until everything of the machine is gone")] = False,
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """Delete a machine: drain, then VM, NIC and disks; the workflow ends when nothing is left."""
    from cli.machine.waiting import wait_deleted

    async def remove(client: Client, wf_id: str) -> None:
        await machines.request_delete(client, wf_id, force=force)
        console.print(shown(f"deletion requested for {wf_id}"))
        if wait:
            await wait_deleted(client, wf_id, console)

    _on_machine(name, resource_group, temporal_address, namespace, remove)
