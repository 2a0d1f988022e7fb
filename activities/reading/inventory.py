"""A machine's inventory: what of it exists in Azure; the empty Inventory when no VM, no NIC and no disk does.

"Nothing exists" is an answer, not a failure: deletion's last read expects it, so a clean lifecycle's history
shows no failed activity (earlier workers raised NotFound here; the workflow reads both the same way).

Request budget: a machine whose VM exists costs ONE request (GET VM with instanceView lists its NICs
and disks). Only when the VM is absent do we look further, with ONE more: ARM's own list of the
resource group's resources named "<machine>-..." (machine_resources.py), every type at once,
under any name a spec gave them, with their tags; from ARM's state, because "absent" must never be
concluded from the lagging Resource Graph.

A LEGACY VM (tagged by azmc before owner tags) is adopted as it is read (activities/tags.py), so every
caller sees the machine as its own; tags.py reads VMs through vm.py, never through this module.
"""


from azure.mgmt.compute import models as cm
from temporalio.exceptions import ApplicationError

from activities.arm import log, log_start
from activities.clients import AzureClients
from activities.ownership import Ownership, owner_of
from activities.reading.graph import DISK_TYPE, NIC_TYPE, PUBLIC_IP_TYPE, VM_TYPE
from activities.reading.machine_resources import Listed, machine_resources
from activities.reading.vm import get_vm, vm_inventory
from activities.tags import adopt_legacy_machine
from models.errors import ErrorType
from models.inventory import DataDiskRef, Inventory
from models.naming import data_disk_name, nic_name, os_disk_name, public_ip_name
from models.spec import MachineSpec


async def _owned_vm(clients: AzureClients, spec: MachineSpec) -> cm.VirtualMachine | None:
    """The VM when it is ours (a LEGACY one is adopted first); NotOwned when another owner's."""
    vm = await get_vm(clients, spec.resource_group, spec.name)
    if vm is None:
        return None
    owner = owner_of(clients, spec.resource_group, spec.name)
    if owner.require("VM", spec.name, vm.tags) == Ownership.LEGACY:
        await adopt_legacy_machine(clients, owner, spec, vm, vm_inventory(vm))
    return vm


async def find_vm(clients: AzureClients, spec: MachineSpec) -> Inventory:
    """The VM and what it names: one GET. Without a VM, the spec's data disks that exist (one ARM list of
    the machine's resources, remembered: ensure_nic then needs no GET to learn the NIC is absent), so a
    re-created VM attaches them instead of creating them empty. Never the NIC: creation never skips
    work because a NIC is absent (ensure_nic checks).

    A machine this worker has seen nothing of (a new machine's first attempt, or the first check after
    a worker restart) is listed FIRST: without a VM that one request is the whole answer; with one, the
    GET follows (one request more, once per machine and worker start)."""
    rg = spec.resource_group
    listed = None
    if not clients.read_cache.knows(rg, spec.name):
        listed = await machine_resources(clients, rg, spec.name)
        if any(res.type == VM_TYPE and res.name.lower() == spec.name.lower() for res in listed):
            listed = None
    if listed is None:
        vm = await _owned_vm(clients, spec)
        if vm is not None:
            return vm_inventory(vm)
    wanted = {data_disk_name(spec.name, d.lun, d.name).lower() for d in spec.data_disks}
    kept = [disk for disk in (await _leftovers(clients, spec, listed)).data_disks if disk.name.lower() in wanted]
    return Inventory(disk_names=[disk.name for disk in kept], data_disks=kept)


async def read_inventory(clients: AzureClients, spec: MachineSpec) -> Inventory:
    not_ours: list[str] = []
    if clients.read_cache.deleted_recently(spec.resource_group, spec.name):
        # This worker just deleted the VM: ARM's list answers for every type at once, the VM included.
        listed = await machine_resources(clients, spec.resource_group, spec.name)
        if not any(res.type == VM_TYPE and res.name.lower() == spec.name.lower() for res in listed):
            return _found(spec, await _leftovers(clients, spec, listed), [])
    try:
        vm = await _owned_vm(clients, spec)
    except ApplicationError as exc:
        if exc.type != ErrorType.NOT_OWNED:
            raise
        # Another owner's VM is not part of this machine: never deleted, only shown.
        log(spec.name, "%s", exc.message)
        vm, not_ours = None, [f"VM {spec.name}"]
    if vm is not None:
        inventory = vm_inventory(vm)
        log_start(spec.name, "status: %s", inventory.summary())
        return inventory
    return _found(spec, await _leftovers(clients, spec), not_ours)


def _found(spec: MachineSpec, inventory: Inventory, not_ours: list[str]) -> Inventory:
    """What is left without a VM (nothing of another owner that sits in our names included)."""
    inventory = inventory.model_copy(update={"not_ours": not_ours + inventory.not_ours})
    if inventory.is_empty and not inventory.not_ours:
        log_start(spec.name, "status: nothing exists")
    else:
        log_start(spec.name, "status: %s", inventory.summary())
    return inventory


async def _leftovers(clients: AzureClients, spec: MachineSpec, listed: list[Listed] | None = None) -> Inventory:
    """No VM: ARM's own list of the machine's resources (one request, no index lag: "nothing left" is
    Azure's word), each classified by its tags as a GET would be."""
    rg = spec.resource_group
    owner = owner_of(clients, rg, spec.name)
    if listed is None:
        listed = await machine_resources(clients, rg, spec.name)
    clients.read_cache.saw_listed(rg, spec.name, listed)
    os_disk = os_disk_name(spec.name).lower()
    luns = {data_disk_name(spec.name, d.lun, d.name).lower(): d.lun for d in spec.data_disks}
    derived = {nic_name(spec.name).lower(), public_ip_name(spec.name).lower(),
               *(d.lower() for d in spec.all_disk_names())}
    nics: list[str] = []
    public_ips: list[str] = []
    disks: list[str] = []
    data: list[DataDiskRef] = []
    not_ours: list[str] = []
    for res in listed:
        if res.type not in (NIC_TYPE, DISK_TYPE, PUBLIC_IP_TYPE):
            continue
        kind = {NIC_TYPE: "NIC", DISK_TYPE: "disk", PUBLIC_IP_TYPE: "public IP"}[res.type]
        if not owner.may_use(res.tags):
            if res.name.lower() in derived:  # under our own name: shown as left alone
                not_ours.append(f"{kind} {res.name}")
                log(spec.name, "ignoring %s: %s", res.name, owner.not_owned(kind, res.name, res.tags).message)
            continue
        if kind == "NIC":
            nics.append(res.name)
            continue
        if kind == "public IP":
            public_ips.append(res.name)
            continue
        disks.append(res.name)
        if res.name.lower() != os_disk:  # a data disk of this spec or of an older one: data all the same
            data.append(DataDiskRef(name=res.name, lun=luns.get(res.name.lower(), -1), id=res.id))
    order = {name.lower(): i for i, name in enumerate(spec.all_disk_names())}  # OS disk, then data disks by lun

    def spec_first(name: str) -> tuple[int, str]:
        return order.get(name.lower(), len(order)), name.lower()

    data.sort(key=lambda disk: spec_first(disk.name))
    return Inventory(nic_names=sorted(nics, key=spec_first), disk_names=sorted(disks, key=spec_first),
                     public_ip_names=sorted(public_ips),
                     data_disks=data, not_ours=not_ours)
