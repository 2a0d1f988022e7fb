"""find_pool_leftovers: what Azure holds under a pool's `azmc-pool` tag, read just before the pool says none
of its machines is left.

Resource Graph finds the candidates (the pool's tag, this installation's owner tag), and the pool adds the
machines it knows ended without deleting themselves: the graph lags, a direct read does not. Each machine's
workflow is described (its state, and whether this pool started it) and each resource read by ARM GET, so
what is reported is there now. The pool deletes only what its own closed machines left; the rest it names.
"""

import asyncio
from typing import Any

from temporalio.client import Client

from activities.arm import classified, get_or_none
from activities.clients import AzureClients
from activities.ownership import Owner, Ownership
from activities.pool.machines import machine_truth
from activities.reading.fleet import GraphMachine, split_fleet
from activities.reading.graph import fleet_query, query_all
from activities.reading.vm import vm_inventory
from activities.request_count import counting
from models.naming import workflow_id
from models.pool_io import ChildState, PoolLeftovers, PoolLeftoversInput, resources_of
from models.status import Phase
from models.sweep import OrphanMachine


async def _read(clients: AzureClients, rg: str, kind: str, name: str) -> Any:
    """The SDK model of the resource, or None when it is gone."""
    async with classified(f"read {kind} {name}"):
        if kind == "VM":
            return await get_or_none(clients.compute.virtual_machines.get(rg, name))
        if kind == "NIC":
            return await get_or_none(clients.network.network_interfaces.get(rg, name))
        if kind == "public IP":
            return await get_or_none(clients.network.public_ip_addresses.get(rg, name))
        return await get_or_none(clients.compute.disks.get(rg, name))


async def existing(clients: AzureClients, machine: GraphMachine) -> OrphanMachine:
    """The machine's resources that exist now and are its own (the OS disk a VM PUT made untagged too)."""
    if not clients.installation_id:
        raise ValueError("a pool's leftovers need the installation id")
    rg, owner = machine.resource_group, Owner(clients.installation_id, machine.workflow_id, machine.name)
    vm = await _read(clients, rg, "VM", machine.name)
    vm_ours = vm is not None and owner.classify(vm.tags) == Ownership.OURS
    attached = vm_inventory(vm) if vm_ours else None
    nics = sorted(machine.nics | set(attached.nic_names if attached else []))
    disks = sorted(machine.disks | set(attached.disk_names if attached else []))
    ips = sorted(machine.public_ips)
    bodies = await asyncio.gather(*(_read(clients, rg, "NIC", n) for n in nics),
                                  *(_read(clients, rg, "disk", d) for d in disks),
                                  *(_read(clients, rg, "public IP", p) for p in ips))
    vm_disks = set(attached.disk_names) if attached else set()

    def ours(body: Any, name: str) -> bool:
        kind = owner.classify(body.tags) if body is not None else None
        return kind == Ownership.OURS or (kind == Ownership.UNTAGGED and name in vm_disks)

    kept = [name for name, body in zip(nics + disks + ips, bodies, strict=True) if ours(body, name)]
    return OrphanMachine(name=machine.name, resource_group=rg, workflow_id=machine.workflow_id,
                         vm=machine.name if vm_ours else "", nics=[n for n in kept if n in nics],
                         disks=[d for d in kept if d in disks], public_ips=[p for p in kept if p in ips])


async def _sort(clients: AzureClients, client: Client, inp: PoolLeftoversInput, machine: GraphMachine,
                ended: set[str], into: dict[str, list[Any]]) -> None:
    truth = await machine_truth(client, inp.pool_workflow_id, machine.resource_group, machine.name)
    if truth.state == ChildState.OPEN and truth.phase != Phase.DELETED:  # Deleted: it is about to complete
        into["open"].append(machine.name)
        return
    found = await existing(clients, machine)
    if not found.resource_count:
        return  # the graph lagged: gone already
    own = truth.state in (ChildState.OPEN, ChildState.DELETED, ChildState.ENDED) or (
        truth.state == ChildState.ABSENT and machine.name in ended)
    if own:
        into["closed"].append(found)
    else:
        into["others"].append(f"{resources_of(found)}: workflow {machine.workflow_id} {truth.detail}")


async def find_pool_leftovers(clients: AzureClients, client: Client, inp: PoolLeftoversInput) -> PoolLeftovers:
    if not clients.installation_id:
        raise ValueError("finding a pool's resources needs the installation id")
    with counting() as requests:
        rows = await query_all(clients, fleet_query(inp.resource_group, inp.pool), f"find pool {inp.pool}'s resources")
        fleet = split_fleet(rows, clients.installation_id)
        machines = dict(fleet.ours)
        for gone in inp.ended:
            wf_id = workflow_id(gone.resource_group, gone.name)
            entry = machines.setdefault(wf_id.lower(), GraphMachine(gone.name, gone.resource_group, wf_id))
            entry.nics.update(gone.nics)
            entry.disks.update(gone.disks)
            entry.public_ips.update(gone.public_ips)
        into: dict[str, list[Any]] = {"open": [], "closed": [], "others": []}
        ended = {gone.name for gone in inp.ended}
        await asyncio.gather(*(_sort(clients, client, inp, machine, ended, into)
                               for _, machine in sorted(machines.items())))
        for legacy in fleet.legacy.values():  # no owner tag: older azmc's, never deleted by a pool
            found = await existing_legacy(clients, legacy)
            if found:
                into["others"].append(f"{legacy.name} ({found}): tagged by azmc before owner tags, left alone")
    return PoolLeftovers(open_machines=sorted(into["open"]),
                         closed_machines=sorted(into["closed"], key=lambda m: m.name),
                         others=sorted(into["others"]), graph_rows=len(rows), arm_requests=sum(requests.values()))


async def existing_legacy(clients: AzureClients, machine: GraphMachine) -> str:
    """The resources of an older azmc's machine that exist now, as one line ("" when none)."""
    rg = machine.resource_group
    names = ([("VM", machine.name)] if machine.vm is not None else []) + [("NIC", n) for n in sorted(machine.nics)] \
        + [("disk", d) for d in sorted(machine.disks)]
    bodies = await asyncio.gather(*(_read(clients, rg, kind, name) for kind, name in names))
    return ", ".join(f"{kind} {name}" for (kind, name), body in zip(names, bodies, strict=True) if body is not None)
