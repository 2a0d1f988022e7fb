"""`azmc pool get|describe|scale|resume-repairs|delete`, and `azmc apply` of a `kind: MachinePool` document.

Each command parses flags and hands over to cli/pool/lookup.py (finding the pool), cli/pool_workflow.py (the
calls on it) and cli/pool/table.py or cli/render.py (output).
"""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated

import typer
from rich.console import Console
from temporalio.client import Client, WorkflowExecutionStatus

from cli import pool_workflow
from cli.errors import run_friendly, settings_or_exit
from cli.options import HELP_MARKUP, Namespace, ResourceGroup, TemporalAddress
from cli.pool.headline import described, headline_of
from cli.pool.lookup import list_pools, pool_of, pool_ref, resolve
from cli.pool.table import pools_table
from cli.pool_workflow import PoolError
from cli.render import console, pool_view, shown
from models.pool import PoolSpec, PoolStatus
from models.visible_text import visible_json
from workers.connect import connect
from workers.settings import Settings

pool_app = typer.Typer(help="MachinePools: N identical machines, rolled out and healed by one workflow.",
                       no_args_is_help=True, rich_markup_mode=HELP_MARKUP)
PoolName = Annotated[str, typer.Argument(help="NAME, RESOURCE_GROUP/NAME or the workflow id pool/RG/NAME")]


def _on_pool(name: str, resource_group: str, address: str | None, namespace: str | None,
             act: Callable[[Client, str], Awaitable[None]]) -> None:
    """Run `act` with a client and the named pool's workflow id; a name that is not valid is refused before
    connecting, and every error is one line (run_friendly)."""
    settings = settings_or_exit(temporal_address=address, temporal_namespace=namespace)

    async def main() -> None:
        pool_ref(name, resource_group)
        client = await connect(settings)
        await act(client, await resolve(client, name, resource_group))

    run_friendly(main)


def apply_pool_document(spec: PoolSpec, settings: Settings, out: Console) -> None:
    async def main() -> None:
        applied = await pool_workflow.apply_pool(await connect(settings), spec, settings.task_queue)
        out.print(shown(applied.line(spec)))

    run_friendly(main)


@pool_app.command()
def get(
    all_: Annotated[bool, typer.Option("--all", "-a", help="include deleted pools")] = False,
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """List pools: desired/ready/updated/available machines, revision, rollout phase."""
    settings = settings_or_exit(temporal_address=temporal_address, temporal_namespace=namespace)

    async def main() -> None:
        rows = await list_pools(await connect(settings), include_closed=all_)
        if not rows:
            console.print("no pools; create one with `azmc apply -f pool.yaml` (kind: MachinePool)")
            return
        console.print(pools_table(rows))

    run_friendly(main)


@pool_app.command()
def describe(
    name: PoolName,
    resource_group: ResourceGroup = "",
    as_json: Annotated[bool, typer.Option("--json", help="print the raw status query answer")] = False,
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """Show a pool: counts, revisions, each machine (phase, revision, preserved) and the last operations."""
    async def show(client: Client, wf_id: str) -> None:
        if as_json:  # the pool's own answer, waited for: a script reads every field of it
            print(visible_json((await pool_workflow.status(client, wf_id)).model_dump_json(indent=2)))
            return
        rg, pool = pool_of(wf_id) or ("", "")
        status, note = await described(client, wf_id, rg, pool)
        console.print(pool_view(status, wf_id, note))

    _on_pool(name, resource_group, temporal_address, namespace, show)


@pool_app.command()
def scale(
    name: PoolName,
    replicas: Annotated[int, typer.Option("--replicas", "-r", help="the number of machines wanted")],
    resource_group: ResourceGroup = "",
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """Set the pool's replicas (a Temporal Update: the pool accepts, or says why not)."""
    async def set_replicas(client: Client, wf_id: str) -> None:
        status = await pool_workflow.scale(client, wf_id, replicas)
        console.print(shown(f"pool {wf_id} accepted replicas {status.replicas}: {status.summary or status.phase}"))

    _on_pool(name, resource_group, temporal_address, namespace, set_replicas)


@pool_app.command("resume-repairs")
def resume_repairs(
    name: PoolName,
    resource_group: ResourceGroup = "",
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """Repair Unhealthy machines although more than max_unhealthy are (repairs were paused as an outage); until
    fewer are unhealthy, when the guard holds again."""
    async def resume(client: Client, wf_id: str) -> None:
        status = await pool_workflow.resume_repairs(client, wf_id)
        console.print(shown(f"pool {wf_id} resumed repairs: {status.summary or status.phase}"))

    _on_pool(name, resource_group, temporal_address, namespace, resume)


@pool_app.command()
def delete(
    name: PoolName,
    resource_group: ResourceGroup = "",
    reason: Annotated[str, typer.Option(help="why (in the pool's history)")] = "azmc pool delete",
    wait: Annotated[bool, typer.Option(help="wait until every machine is gone and the pool completed")] = False,
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
) -> None:
    """Delete the pool: every machine deleted (verified against Azure), then the pool's workflow completes."""
    async def request(client: Client, wf_id: str) -> None:
        await pool_workflow.request_delete(client, wf_id, reason)
        console.print(shown(f"deletion requested for {wf_id}"))
        if wait:
            await wait_pool_deleted(client, wf_id, console)

    _on_pool(name, resource_group, temporal_address, namespace, request)


async def wait_pool_deleted(client: Client, wf_id: str, out: Console, poll_s: float = 0.5) -> None:
    """Until the pool's workflow completed, showing how many machines are left."""
    with out.status("deleting...") as spinner:
        while True:  # describes only: a query would take the one place the server holds for a busy pool's queries
            found = await client.get_workflow_handle(wf_id).describe()
            if found.status != WorkflowExecutionStatus.RUNNING:
                break
            kept = await headline_of(found)
            if kept is not None:
                spinner.update(shown(f"{wf_id}: {kept.machines} machines left ({kept.phase})"))
            await asyncio.sleep(poll_s)
    state = found.status
    if state != WorkflowExecutionStatus.COMPLETED:
        raise PoolError(f"{wf_id} ended {state.name.lower() if state else 'unknown'}; see `azmc pool describe`")
    final = await client.get_workflow_handle(wf_id, result_type=PoolStatus).result()
    out.print(shown(deleted_line(wf_id, final)))


def deleted_line(wf_id: str, final: PoolStatus) -> str:
    """What a deleted pool can truly say of Azure: only a pool that read Azure by its tag says nothing is left."""
    if not final.azure_checked:
        return (f"{wf_id} deleted: every machine it knew of said Deleted (this pool did not read Azure by its "
                "azmc-pool tag; `azmc get` lists what was abandoned)")
    if final.left_in_azure:
        return (f"{wf_id} deleted: none of its machines is left in Azure; tagged azmc-pool={final.name} but not "
                f"the pool's to delete: {'; '.join(final.left_in_azure)}")
    return f"{wf_id} deleted: none of its machines is left in Azure"
