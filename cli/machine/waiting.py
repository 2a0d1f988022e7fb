"""Wait for a machine to reach a phase (or its deletion to finish), showing where it is meanwhile."""

import asyncio

from rich.console import Console
from rich.text import Text
from temporalio.client import Client, WorkflowExecutionStatus

from cli import machines
from cli.machines import MachineError
from cli.render import shown
from models.status import MachineStatus, Phase


def _progress(status: MachineStatus) -> Text:
    """Text, not a string: a status line may carry Azure's message, and rich's spinner parses strings as markup."""
    operation = status.last_operation
    detail = f" - {operation.stage}: {operation.description}" if operation else ""
    return shown(f"{status.name or 'machine'} {status.phase}{detail}")


async def wait_running(client: Client, wf_id: str, console: Console, poll_s: float = 0.5) -> MachineStatus:
    """Return once the machine is Running; raise MachineError if it goes Failed or its workflow ends."""
    await machines.check_answering(client, wf_id)
    with console.status("creating...") as spinner:
        while True:
            status = await machines.status(client, wf_id)
            spinner.update(_progress(status))
            if status.phase == Phase.RUNNING:
                break
            if status.phase == Phase.FAILED:
                raise MachineError(f"{wf_id} is Failed: {status.last_error or 'see `azmc describe`'}")
            if await machines.execution_status(client, wf_id) != WorkflowExecutionStatus.RUNNING:
                raise MachineError(f"the workflow {wf_id} ended before the machine was Running; see `azmc describe`")
            await asyncio.sleep(poll_s)
    console.print(shown(f"{wf_id} is Running ({status.inventory.node_name})"))
    return status


async def wait_deleted(client: Client, wf_id: str, console: Console, poll_s: float = 0.5) -> None:
    """Return when the workflow completed (everything deleted); raise MachineError if it ended otherwise."""
    await machines.check_answering(client, wf_id)
    with console.status("deleting...") as spinner:
        while True:
            state = await machines.execution_status(client, wf_id)
            if state != WorkflowExecutionStatus.RUNNING:
                break
            spinner.update(_progress(await machines.status(client, wf_id)))
            await asyncio.sleep(poll_s)
    if state != WorkflowExecutionStatus.COMPLETED:
        raise MachineError(f"{wf_id} ended {state.name.lower() if state else 'unknown'}; see `azmc describe`")
    console.print(shown(f"{wf_id} deleted: nothing of it is left in Azure"))
