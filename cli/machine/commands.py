"""`azmc describe` and `azmc delete`: one machine, named as the user knows it (registered in cli/commands.py)."""

from typing import Annotated

import typer
from rich.text import Text
from temporalio.client import Client

from cli import machines
from cli.errors import run_friendly, settings_or_exit
from cli.options import Namespace, ResourceGroup, TemporalAddress
from cli.render import console, describe_view
from workers.connect import connect
from workers.settings import Settings

MachineName = Annotated[str, typer.Argument(help="NAME, RESOURCE_GROUP/NAME or the workflow id")]


async def _find_machine(settings: Settings, name: str, resource_group: str) -> tuple[Client, str]:
    """A client and the machine's workflow id; a name that is not valid is refused before connecting."""
    machines.machine_ref(name, resource_group)
    client = await connect(settings)
    return client, await machines.resolve(client, name, resource_group)


def describe(
    name: MachineName,
    resource_group: ResourceGroup = "",
    as_json: Annotated[bool, typer.Option("--json", help="print the raw status query answer")] = False,
    requests: Annotated[bool, typer.Option("--requests", help="every Azure request azmc made (from history)")] = False,
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """Show a machine's phase, last operation, inventory and recent operations (the `status` query)."""
    settings = settings_or_exit(temporal_address=temporal_address, temporal_namespace=namespace)

    async def main() -> None:
        client, wf_id = await _find_machine(settings, name, resource_group)
        if requests:
            from cli.machine.audit_trail import attempts_json, read_attempts, requests_table

            attempts = await read_attempts(client, wf_id)
            print(attempts_json(attempts)) if as_json else console.print(requests_table(attempts))
            return
        status = await machines.status(client, wf_id)
        if as_json:
            print(status.model_dump_json(indent=2))
        else:
            console.print(describe_view(status, wf_id))

    run_friendly(main)


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

    settings = settings_or_exit(temporal_address=temporal_address, temporal_namespace=namespace)

    async def main() -> None:
        client, wf_id = await _find_machine(settings, name, resource_group)
        await machines.request_delete(client, wf_id, force=force)
        console.print(Text(f"deletion requested for {wf_id}"))
        if wait:
            await wait_deleted(client, wf_id, console)

    run_friendly(main)
