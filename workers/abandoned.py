"""Abandoned machines for `azmc get`: resources azmc tagged in Azure whose machine workflow is not open.

An operator who terminates a machine's workflow leaves its VM, NIC and disks behind with nobody
watching them; `azmc get` shows them, so they are never invisible. The CLI reads Azure with the
worker's own settings (AzureConfig, the real SDK clients, Resource Graph).
"""

import asyncio
from collections.abc import Mapping
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from activities.clients import build_clients
from activities.config import AzureConfig
from activities.graph import fleet_query, query_all
from activities.inventory_list import group_rows
from models.activity_io import MachineSummary
from models.naming import MACHINE_TAG, workflow_id
from workers.errors import note
from workers.machines import AbandonedMachine, MachineRow
from workers.settings import Settings
from workers.worker import azure_config

AZURE_READ_TIMEOUT_S = 30.0
HINT = (
    "Abandoned: resources tagged by azmc whose machine workflow is not open (terminated, or never finished "
    "deleting). `azmc apply` of the machine's spec adopts them again; then `azmc delete` removes them."
)


def ours(resource: Mapping[str, Any]) -> bool:
    """THE one decision which Azure resources (Resource Graph rows) belong to this azmc installation.

    Today: every resource with the azmc-machine tag. The installation's owner tag (azmc-owner) is
    to be checked here, and only here, once resources carry it.
    """
    tags = resource.get("tags") or {}
    return bool(tags.get(MACHINE_TAG))


async def tagged_machines(config: AzureConfig, pool: str = "") -> list[MachineSummary]:
    """Our machines as Azure's Resource Graph sees them (it lags ARM by seconds), one summary each."""
    clients = build_clients(config)
    try:
        rows = await query_all(clients, fleet_query(pool=pool), "list azmc machines")
    finally:
        await clients.close()
    return group_rows([row for row in rows if ours(row)])


async def _workflow_open(client: Client, wf_id: str) -> bool:
    """Strongly consistent (describe, not visibility): is this machine's workflow still running?"""
    try:
        return (await client.get_workflow_handle(wf_id).describe()).status == WorkflowExecutionStatus.RUNNING
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return False
        raise


async def find_abandoned(
    client: Client, config: AzureConfig, open_ids: set[str], pool: str = ""
) -> list[AbandonedMachine]:
    """Machines in Azure whose workflow `machine/<rg>/<name>` is not open. `open_ids` (from visibility)
    settles most; the rest are confirmed one by one, since visibility lags too."""
    machines = await asyncio.wait_for(tagged_machines(config, pool), AZURE_READ_TIMEOUT_S)
    known_open = {wf_id.lower() for wf_id in open_ids}  # ARM resource group names are case-insensitive
    abandoned = []
    for machine in machines:
        wf_id = workflow_id(machine.resource_group, machine.name)
        if wf_id.lower() in known_open or await _workflow_open(client, wf_id):
            continue
        abandoned.append(AbandonedMachine(machine.name, machine.resource_group, machine.pool, machine.inventory, wf_id))
    return abandoned


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
        return await find_abandoned(client, azure, {row.workflow_id for row in rows if row.open}, pool)
    except Exception as error:  # the listing from Temporal still stands; say what is missing and why
        text = str(error).strip()
        reason = text.splitlines()[0][:200] if text else type(error).__name__
        note(f"abandoned resources not checked: reading Azure failed ({reason})")
        return []
