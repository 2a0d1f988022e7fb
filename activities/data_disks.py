"""keep_data_disks: before a VM is deleted for a recovery, make sure deleting it cannot delete its data.

VMs created by azmc before data disks were created with deleteOption Detach have deleteOption Delete on
their data disks: deleting such a VM would delete the data with it. One VM PATCH flips them to Detach.
"""

from azure.mgmt.compute import models as cm

from activities.arm import classified, is_owned, log, resume_operation, wait_heartbeating
from activities.clients import AzureClients
from activities.errors import error, not_owned
from activities.status import get_vm, vm_inventory
from models.activity_io import MachineRef
from models.errors import ErrorType
from models.inventory import Inventory


def _detached(disk: cm.DataDisk) -> cm.DataDisk:
    # A PATCH's dataDisks list replaces the VM's: every disk is sent, as attached, with Detach.
    return cm.DataDisk(lun=disk.lun, name=disk.name, create_option=cm.DiskCreateOptionTypes.ATTACH,
                       managed_disk=cm.ManagedDiskParameters(id=disk.managed_disk.id if disk.managed_disk else None),
                       caching=disk.caching, delete_option=cm.DiskDeleteOptionTypes.DETACH)


async def keep_data_disks(clients: AzureClients, machine: MachineRef) -> Inventory:
    """Every data disk of the VM gets deleteOption Detach; returns the VM as it is then (empty: no VM).
    Raises Transient when Azure's answer still shows a data disk with Delete."""
    rg, name = machine.resource_group, machine.name
    vms = clients.compute.virtual_machines
    async with classified(f"keep data disks of VM {name}"):
        resumed, updated = await resume_operation(
            name, lambda token: vms.begin_update(rg, name, cm.VirtualMachineUpdate(), continuation_token=token))
    if resumed and updated is not None:
        return _confirmed(name, vm_inventory(updated))
    vm = await get_vm(clients, rg, name)
    if vm is None:
        log(name, "VM does not exist (any more): no data disk can go with it")
        return Inventory()
    if not is_owned(vm.tags, name):
        raise not_owned("VM", name, name)
    inventory = vm_inventory(vm)
    if all(disk.survives_vm_delete for disk in inventory.data_disks):
        return inventory
    disks = [_detached(disk) for disk in (vm.storage_profile.data_disks if vm.storage_profile else None) or []]
    log(name, "setting deleteOption Detach on data disks %s", ", ".join(d.name for d in inventory.data_disks))
    update = cm.VirtualMachineUpdate(storage_profile=cm.StorageProfile(data_disks=disks))
    async with classified(f"keep data disks of VM {name}"):
        updated = await wait_heartbeating(await vms.begin_update(rg, name, update))
    return _confirmed(name, vm_inventory(updated))


def _confirmed(name: str, inventory: Inventory) -> Inventory:
    """The caller deletes the VM next: it must be sure no data disk goes with it."""
    doomed = [disk.name for disk in inventory.data_disks if not disk.survives_vm_delete]
    if doomed:
        raise error(ErrorType.TRANSIENT, f"VM {name}: data disks {', '.join(doomed)} still have deleteOption "
                                         "Delete after the update")
    return inventory
