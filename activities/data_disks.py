"""set_data_disk_delete_option: what deleting the VM does to its data disks, set before the VM is deleted.

Detach before a recovery deletes the VM: VMs created by azmc before data disks were created with Detach
have deleteOption Delete, and deleting such a VM would delete the data with it. Delete before `delete`
deletes the VM: its data disks then go in the same ARM operation instead of one delete each.
"""

from http import HTTPStatus
from typing import Any

from azure.core import MatchConditions
from azure.core.exceptions import ResourceModifiedError
from azure.mgmt.compute import models as cm

from activities.arm import classified, log, log_start, resume_operation, wait_heartbeating
from activities.clients import AzureClients
from activities.errors import error
from activities.ownership import owner_of
from activities.reading.vm import get_vm, vm_inventory
from activities.reading.vm_statuses import until_updated
from models.activity_io import DataDiskDeleteOptionInput
from models.errors import ErrorType
from models.inventory import Inventory


def _with_option(disk: cm.DataDisk, option: str) -> cm.DataDisk:
    # A PATCH's dataDisks list replaces the VM's: every disk is sent, as attached, with the option.
    return cm.DataDisk(lun=disk.lun, name=disk.name, create_option=cm.DiskCreateOptionTypes.ATTACH,
                       managed_disk=cm.ManagedDiskParameters(id=disk.managed_disk.id if disk.managed_disk else None),
                       caching=disk.caching, delete_option=option)


def _confirmed(name: str, inventory: Inventory, option: str) -> Inventory:
    """The caller deletes the VM next: it must know what goes with it."""
    other = [disk.name for disk in inventory.data_disks if disk.delete_option.lower() != option.lower()]
    if other:
        raise error(ErrorType.TRANSIENT, f"VM {name}: data disks {', '.join(other)} still do not have "
                                         f"deleteOption {option} after the update")
    return inventory


async def set_data_disk_delete_option(clients: AzureClients, inp: DataDiskDeleteOptionInput) -> Inventory:
    """Every data disk of the VM gets `inp.delete_option`; returns the VM as it is then (empty: no VM).
    Raises Transient when Azure's answer still shows another option.

    The VM this worker read last (read_inventory, just before) is PATCHed with If-Match on its etag: ARM
    refuses the write if the VM changed since (412), and only then is the VM read again: no GET when
    nothing changed. The PATCH's own answer is the VM as updated (no final GET)."""
    rg, name, option = inp.machine.resource_group, inp.machine.name, inp.delete_option
    vms = clients.compute.virtual_machines
    async with classified(f"set deleteOption {option} on the data disks of VM {name}"):
        resumed, updated = await resume_operation(
            name, lambda token: vms.begin_update(rg, name, cm.VirtualMachineUpdate(), continuation_token=token,
                                                 polling=clients.vm_polling(rg, name, until_updated)))
    if resumed and updated is not None:
        return _confirmed(name, vm_inventory(updated), option)
    known = clients.read_cache.vm(rg, name)
    for vm in ([known] if known is not None and known.etag else []) + [None]:
        remembered = vm is not None
        vm = vm or await get_vm(clients, rg, name)
        if vm is None:
            log(name, "VM does not exist (any more): no data disk can go with it")
            return Inventory()
        owner_of(clients, rg, name).require("VM", name, vm.tags)
        inventory = vm_inventory(vm)
        if all(disk.delete_option.lower() == option.lower() for disk in inventory.data_disks):
            if remembered:
                continue  # "nothing to do" is only ARM's to say: a VM remembered may have changed since
            return inventory
        updated = await _patch(clients, rg, name, vm, option)
        if updated is not None:
            clients.read_cache.saw_vm(rg, name, updated)
            return _confirmed(name, vm_inventory(updated), option)
        log(name, "VM changed since it was read (412 on If-Match): reading it again")
    raise error(ErrorType.TRANSIENT, f"VM {name} changed while its data disks' deleteOption was being set")


async def _patch(clients: AzureClients, rg: str, name: str, vm: cm.VirtualMachine,
                 option: str) -> cm.VirtualMachine | None:
    """The PATCH on exactly the version read (If-Match when the VM has an etag); None on 412."""
    disks = [_with_option(d, option) for d in (vm.storage_profile.data_disks if vm.storage_profile else None) or []]
    log_start(name, "setting deleteOption %s on data disks %s", option, ", ".join(d.name or "" for d in disks))
    update = cm.VirtualMachineUpdate(storage_profile=cm.StorageProfile(data_disks=disks))  # type: ignore[call-overload]  # azure-mgmt's models take flattened properties, which their signatures omit
    condition: dict[str, Any] = {"etag": vm.etag, "match_condition": MatchConditions.IfNotModified} if vm.etag else {}
    async with classified(f"set deleteOption {option} on the data disks of VM {name}"):
        try:
            poller = await clients.compute.virtual_machines.begin_update(
                rg, name, update, polling=clients.vm_polling(rg, name, until_updated), **condition)
        except ResourceModifiedError as exc:
            if exc.status_code != HTTPStatus.PRECONDITION_FAILED:
                raise
            return None
        return await wait_heartbeating(poller)
