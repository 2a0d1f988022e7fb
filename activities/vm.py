"""ensure_vm: create the VM once (or adopt ours), resuming a previous attempt's operation when there is one."""

from typing import Any

from azure.mgmt.compute import models as cm
from temporalio.exceptions import ApplicationError

from activities.arm import classified, log, resume_operation, wait_heartbeating
from activities.clients import AzureClients
from activities.disk_tags import tag_vm_disks
from activities.errors import classify_code
from activities.ownership import Ownership, owner_of
from activities.retag import adopt_legacy_machine
from activities.vm_body import build_vm
from activities.vm_reader import get_vm, vm_inventory
from models.activity_io import EnsureVmInput
from models.inventory import Inventory
from models.spec import MachineSpec


def failed_vm_error(vm: cm.VirtualMachine) -> Exception:
    """A VM that ended Failed: classify the reason its instanceView gives (e.g. AllocationFailed)."""
    code, message = "VMProvisioningFailed", f"VM {vm.name} is in provisioningState Failed"
    view = vm.instance_view
    for status in (view.statuses if view and view.statuses else []):
        if status.code and status.code.lower().startswith("provisioningstate/failed"):
            code = status.code.split("/")[-1] or code
            message = status.message or status.display_status or message
    return classify_code(code, message, prefix=f"VM {vm.name}: ")


async def _tag_disks_of_failed_create(clients: AzureClients, spec: MachineSpec,
                                      vm: cm.VirtualMachine | None = None) -> None:
    """A failed create leaves its disks (a data disk survives the VM's delete, deleteOption Detach), untagged
    like every disk a VM PUT makes: tag them, so the compensation finds and deletes the ones it created.
    Best effort: the create's own error is what the caller must see."""
    try:
        vm = vm or await get_vm(clients, spec.resource_group, spec.name)
        if vm is not None and owner_of(clients, spec.resource_group, spec.name).may_use(vm.tags):
            await tag_vm_disks(clients, spec, vm_inventory(vm), created=False)
    except ApplicationError as err:
        log(spec.name, "could not tag the disks of the failed VM: %s", err)


async def ensure_vm(clients: AzureClients, inp: EnsureVmInput) -> Inventory:
    spec = inp.spec
    vms = clients.compute.virtual_machines
    owner = owner_of(clients, spec.resource_group, spec.name)
    body = build_vm(spec, inp.nic_id, owner.tags(spec), inp.attach)
    attached = [disk.name for disk in inp.attach]
    known = {disk.name: disk.unique_id for disk in inp.attach}

    def resume(token: str) -> Any:
        return vms.begin_create_or_update(spec.resource_group, spec.name, body, continuation_token=token,
                                          polling=clients.polling())

    async with classified(f"create VM {spec.name}"):
        _, vm = await resume_operation(spec.name, resume)
    if vm is None:
        vm = await get_vm(clients, spec.resource_group, spec.name)
        ownership = owner.require("VM", spec.name, vm.tags) if vm is not None else None
        if vm is not None and vm.provisioning_state == "Succeeded":
            log(spec.name, "VM already exists; adopting it")
            inventory = vm_inventory(vm)
            if ownership == Ownership.LEGACY:
                await adopt_legacy_machine(clients, owner, spec, vm, inventory)
            known |= await tag_vm_disks(clients, spec, inventory, created=False)
            return inventory.with_unique_ids(known)
        if vm is not None and vm.provisioning_state == "Failed":
            await _tag_disks_of_failed_create(clients, spec, vm)
            raise failed_vm_error(vm)
        log(spec.name, "creating VM (%s in %s)%s", spec.vm_size, spec.location,
            f", attaching existing data disks {', '.join(attached)}" if attached else "")
        try:
            async with classified(f"create VM {spec.name}"):
                poller = await vms.begin_create_or_update(spec.resource_group, spec.name, body,
                                                           polling=clients.polling())
                vm = await wait_heartbeating(poller)
        except ApplicationError:
            await _tag_disks_of_failed_create(clients, spec)
            raise
    inventory = vm_inventory(vm)
    if vm.provisioning_state == "Failed":
        await _tag_disks_of_failed_create(clients, spec)
        raise failed_vm_error(vm)
    known |= await tag_vm_disks(clients, spec, inventory, created=True, attached=attached)
    log(spec.name, "VM ready: %s", inventory.summary())
    return inventory.with_unique_ids(known)
