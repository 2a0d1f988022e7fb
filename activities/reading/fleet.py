"""The fleet as the Resource Graph shows it: `list_machines` (every azmc-owned machine, grouped into partial
inventories) and `split_fleet` (this installation's machines by owner workflow: the sweep's and a pool's).

The graph lags ARM, so this is a discovery tool (the orphan collector's input): any action taken on a
machine found here goes through read_inventory, which confirms by direct GETs.
"""

from dataclasses import dataclass, field
from typing import Any

from activities.arm import resource_name
from activities.clients import AzureClients
from activities.ownership import tag_value
from activities.reading.graph import DISK_TYPE, NIC_TYPE, PUBLIC_IP_TYPE, VM_TYPE, fleet_query, query_all
from models.activity_io import ListMachinesInput, MachineSummary
from models.inventory import Inventory, VmState
from models.naming import MACHINE_TAG, ORPHAN_SEEN_TAG, OWNER_TAG, POOL_TAG, provider_id, workflow_id
from models.sweep import OrphanMachine


def group_rows(rows: list[dict[str, Any]]) -> list[MachineSummary]:
    """Rows -> one summary per (resource group, machine tag), sorted for stable output."""
    machines: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        tags = row.get("tags") or {}
        machine = tags.get(MACHINE_TAG)
        if not machine:
            continue
        rg = row_resource_group(row)
        entry = machines.setdefault((rg.lower(), machine), {
            "rg": rg, "pool": "", "vm": None, "nics": [], "disks": []})
        entry["pool"] = entry["pool"] or tags.get(POOL_TAG, "")
        kind = str(row.get("type", "")).lower()
        name = str(row.get("name", ""))
        if kind == VM_TYPE:
            entry["vm"] = row
        elif kind == NIC_TYPE:
            entry["nics"].append(name)
        elif kind == DISK_TYPE:
            entry["disks"].append(name)
    return [_summary(machine, entry) for (_, machine), entry in sorted(machines.items())]


def row_resource_group(row: dict[str, Any]) -> str:
    # The id keeps the group's real casing; the graph's resourceGroup column is lower-case.
    parts = str(row.get("id", "")).split("/")
    lowered = [p.lower() for p in parts]
    if "resourcegroups" in lowered:
        index = lowered.index("resourcegroups") + 1
        if index < len(parts):
            return parts[index]
    return str(row.get("resourceGroup", ""))


def vm_row_attachments(vm_properties: dict[str, Any]) -> tuple[list[str], list[str]]:
    """NIC and disk names a VM row references: disks made by the VM PUT carry no tags of their own."""
    nics = [resource_name(str(ref.get("id", ""))) for ref in
            (vm_properties.get("networkProfile") or {}).get("networkInterfaces") or [] if ref.get("id")]
    storage = vm_properties.get("storageProfile") or {}
    disks = []
    for disk in ([storage["osDisk"]] if storage.get("osDisk") else []) + list(storage.get("dataDisks") or []):
        managed_id = (disk.get("managedDisk") or {}).get("id")
        name = resource_name(str(managed_id)) if managed_id else str(disk.get("name") or "")
        if name:
            disks.append(name)
    return nics, disks


@dataclass
class GraphMachine:
    """One owner's resources (one workflow id) as the graph shows them."""

    name: str
    resource_group: str
    workflow_id: str
    vm: dict[str, Any] | None = None
    nics: set[str] = field(default_factory=set)
    disks: set[str] = field(default_factory=set)
    public_ips: set[str] = field(default_factory=set)
    marked: bool = False  # a row carries azmc-orphan-seen

    def orphan(self) -> OrphanMachine:
        return OrphanMachine(name=self.name, resource_group=self.resource_group, workflow_id=self.workflow_id,
                             vm=str(self.vm.get("name", "")) if self.vm else "",
                             nics=sorted(self.nics), disks=sorted(self.disks), public_ips=sorted(self.public_ips))


@dataclass
class GraphFleet:
    ours: dict[str, GraphMachine] = field(default_factory=dict)  # by lower-case workflow id
    legacy: dict[str, GraphMachine] = field(default_factory=dict)  # azmc-machine only (older azmc)
    other_owners: int = 0


def split_fleet(rows: list[dict[str, Any]], installation_id: str) -> GraphFleet:
    """Rows -> this installation's machines by owner workflow; other installations' rows only counted."""
    fleet = GraphFleet()
    for row in rows:
        tags = row.get("tags") or {}
        machine = tag_value(tags, MACHINE_TAG)
        if not machine:
            continue
        rg = row_resource_group(row)
        owner = tag_value(tags, OWNER_TAG)
        if owner is None:
            wf_id, table = workflow_id(rg, machine), fleet.legacy
        else:
            installation, _, wf_id = owner.partition("/")
            if installation != installation_id:
                fleet.other_owners += 1
                continue
            table = fleet.ours
        entry = table.setdefault(wf_id.lower(), GraphMachine(machine, rg, wf_id))
        entry.marked = entry.marked or tag_value(tags, ORPHAN_SEEN_TAG) is not None
        kind, name = str(row.get("type", "")).lower(), str(row.get("name", ""))
        if kind == VM_TYPE:
            entry.vm = row
            nics, disks = vm_row_attachments(row.get("properties") or {})
            entry.nics.update(nics)
            entry.disks.update(disks)
        elif kind == NIC_TYPE:
            entry.nics.add(name)
        elif kind == DISK_TYPE:
            entry.disks.add(name)
        elif kind == PUBLIC_IP_TYPE:
            entry.public_ips.add(name)
    return fleet


def _summary(machine: str, entry: dict[str, Any]) -> MachineSummary:
    vm = entry["vm"]
    nics, disks = set(entry["nics"]), set(entry["disks"])
    update: dict[str, Any] = {}
    if vm is not None:
        properties = vm.get("properties") or {}
        vm_nics, vm_disks = vm_row_attachments(properties)
        nics.update(vm_nics)
        disks.update(vm_disks)
        update = {
            "provider_id": provider_id(str(vm.get("id", ""))),
            "node_name": resource_name(str(vm.get("id", ""))),
            "vm_state": VmState(provisioning_state=str(properties.get("provisioningState", ""))),
        }
    inventory = Inventory(nic_names=sorted(nics), disk_names=sorted(disks), **update)
    return MachineSummary(name=machine, resource_group=entry["rg"], pool=entry["pool"], inventory=inventory)


async def list_machines(clients: AzureClients, inp: ListMachinesInput) -> list[MachineSummary]:
    rows = await query_all(clients, fleet_query(inp.resource_group, inp.pool), "list azmc machines")
    return group_rows(rows)
