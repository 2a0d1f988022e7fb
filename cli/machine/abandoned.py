"""Abandoned machines for `azmc get`: resources azmc tagged in Azure whose machine workflow is not open.

An operator who terminates a machine's workflow leaves its VM, NIC and disks behind with nobody
watching them; `azmc get` shows them, so they are never invisible. The CLI reads Azure with the
worker's own settings (AzureConfig, the real SDK clients): Resource Graph finds candidates, direct
GETs confirm what still exists.
"""

import asyncio
from collections.abc import Mapping
from typing import Any

from temporalio.client import Client

from activities.arm import get_or_none
from activities.clients import AzureClients, build_clients
from activities.config import AzureConfig
from activities.ownership import made_by_installation
from activities.reading.fleet import group_rows
from activities.reading.graph import fleet_query, query_all
from activities.reading.vm import get_vm, vm_inventory
from activities.sweep.orphans import workflow_state
from cli.errors import note
from cli.machines import AbandonedMachine, MachineRow
from models.activity_io import MachineSummary
from models.inventory import Inventory
from models.naming import workflow_id
from workers.installation import namespace_installation_id
from workers.settings import Settings
from workers.worker import azure_config

AZURE_READ_TIMEOUT_S = 30.0
HINT = (
    "Abandoned: resources tagged by azmc whose machine workflow is not open (terminated, or never finished "
    "deleting). `azmc apply` of the machine's spec adopts them again; then `azmc delete` removes them."
)


def ours(resource: Mapping[str, Any], installation_id: str) -> bool:
    """Which Azure resources (Resource Graph rows, or bodies) belong to this azmc installation: its owner
    tag names it, or it predates owner tags (activities.ownership.made_by_installation, the one rule)."""
    return made_by_installation(resource.get("tags"), installation_id)


def _installation(clients: AzureClients) -> str:
    if not clients.installation_id:
        raise ValueError("listing abandoned machines needs the installation id")
    return clients.installation_id


async def tagged_machines(clients: AzureClients, pool: str = "") -> list[MachineSummary]:
    """Our machines as Azure's Resource Graph sees them (it lags ARM), one summary each."""
    rows = await query_all(clients, fleet_query(pool=pool), "list azmc machines")
    return group_rows([row for row in rows if ours(row, _installation(clients))])


async def confirmed(clients: AzureClients, machine: MachineSummary) -> Inventory:
    """What of a graph-listed machine a direct GET still finds: the graph lags ARM, so a machine deleted
    seconds ago must not show up as abandoned (nor a resource deleted since)."""
    rg, listed = machine.resource_group, machine.inventory
    vm, *found = await asyncio.gather(
        get_vm(clients, rg, listed.node_name) if listed.has_vm else asyncio.sleep(0, None),
        *(get_or_none(clients.network.network_interfaces.get(rg, name)) for name in listed.nic_names),
        *(get_or_none(clients.compute.disks.get(rg, name)) for name in listed.disk_names),
    )
    names = [*listed.nic_names, *listed.disk_names]
    installation = _installation(clients)
    present = {name for name, body in zip(names, found, strict=True)
               if body is not None and ours(body.as_dict(), installation)}
    base = vm_inventory(vm) if vm is not None and ours(vm.as_dict(), installation) else Inventory()
    return base.model_copy(update={
        "nic_names": sorted(set(base.nic_names) | {n for n in listed.nic_names if n in present}),
        "disk_names": sorted(set(base.disk_names) | {d for d in listed.disk_names if d in present}),
    })  # fmt: skip


async def _workflow_open(client: Client, wf_id: str) -> bool:
    """Strongly consistent (describe, not visibility): is this machine's workflow still running?"""
    return (await workflow_state(client, wf_id))[0]  # the fleet sweep's re-check asks the same


async def _find(client: Client, clients: AzureClients, open_ids: set[str], pool: str) -> list[AbandonedMachine]:
    known_open = {wf_id.lower() for wf_id in open_ids}  # ARM resource group names are case-insensitive
    abandoned = []
    for machine in await tagged_machines(clients, pool):
        wf_id = workflow_id(machine.resource_group, machine.name)
        if wf_id.lower() in known_open or await _workflow_open(client, wf_id):
            continue
        inventory = await confirmed(clients, machine)
        if not inventory.is_empty:
            abandoned.append(AbandonedMachine(machine.name, machine.resource_group, machine.pool, inventory, wf_id))
    return abandoned


async def find_abandoned(
    client: Client, config: AzureConfig, open_ids: set[str], pool: str = ""
) -> list[AbandonedMachine]:
    """Machines in Azure whose workflow `machine/<rg>/<name>` is not open. `open_ids` (from visibility)
    settles most; the rest are confirmed one by one, since visibility lags too."""
    clients = build_clients(config)
    try:
        return await asyncio.wait_for(_find(client, clients, open_ids, pool), AZURE_READ_TIMEOUT_S)
    finally:
        await clients.close()


def azure_config_or_none(settings: Settings) -> AzureConfig | None:
    """The worker's Azure settings (same variables, same checks); None when none are given.
    Raises SettingsError when they are given but unusable."""
    if not settings.azure_endpoint and not settings.azure_subscription_id:
        return None
    return azure_config(settings)


async def abandoned_or_note(client: Client, azure: AzureConfig | None, rows: list[MachineRow],
                            pool: str) -> list[AbandonedMachine]:  # fmt: skip
    """Abandoned machines; or none and a note on stderr saying why they could not be looked for."""
    if azure is None:
        note("abandoned resources not checked: set AZMC_AZURE_ENDPOINT (the emulator) or "
             "AZMC_AZURE_SUBSCRIPTION_ID, as for the worker")  # fmt: skip
        return []
    try:
        if azure.installation_id is None:  # AZMC_INSTALLATION_ID unset: the worker's default, the namespace's id
            azure = azure.model_copy(update={"installation_id": await namespace_installation_id(client)})
        return await find_abandoned(client, azure, {row.workflow_id for row in rows if row.open}, pool)
    except Exception as error:  # the listing from Temporal still stands; say what is missing and why
        text = str(error).strip()
        reason = text.splitlines()[0][:200] if text else type(error).__name__
        note(f"abandoned resources not checked: reading Azure failed ({reason})")
        return []
