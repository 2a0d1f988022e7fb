"""ensure_vm: create the VM once (or adopt ours), resuming a previous attempt's operation when there is one."""

import asyncio
from http import HTTPStatus
from typing import Any

from azure.core import MatchConditions
from azure.core.exceptions import ResourceExistsError, ResourceModifiedError
from azure.mgmt.compute import models as cm
from temporalio.exceptions import ApplicationError

from activities.arm import classified, get_or_none, log, log_start, resume_operation, wait_heartbeating
from activities.clients import AzureClients
from activities.errors import classify_code, error
from activities.ownership import Ownership, owner_of
from activities.reading.vm import get_vm, vm_inventory
from activities.reading.vm_statuses import until_created
from activities.tags import adopt_legacy_machine, tag_vm_disks
from activities.vm_body import build_vm
from activities.vm_in_flight import after_operation_in_flight
from models.activity_io import EnsureVmInput
from models.errors import ErrorType
from models.inventory import DataDiskRef, Inventory, VmState
from models.naming import provider_id
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
            await tag_vm_disks(clients, spec, vm_inventory(vm), created=False, data_only=True)
    except ApplicationError as err:
        log(spec.name, "could not tag the disks of the failed VM: %s", err)


def created_inventory(asked: cm.VirtualMachine, answer: cm.VirtualMachine) -> Inventory:
    """The VM a create made, without the GET after it: what we asked for (NIC, disk names, deleteOptions)
    with ARM's id for it, its disks' ids derived from their names (Azure's create answer carries none), and
    Succeeded, the state its operation ended in."""
    group_prefix = str(answer.id).split("/providers/", 1)[0]  # /subscriptions/<id>/resourceGroups/<rg>

    def disk_id(name: str) -> str:
        return f"{group_prefix}/providers/Microsoft.Compute/disks/{name}"

    inventory = vm_inventory(asked)
    return inventory.model_copy(update={
        "provider_id": provider_id(str(answer.id)),
        "node_name": answer.name or asked.name or "",
        "vm_state": VmState(provisioning_state="Succeeded", power_state=""),
        "identity_principal_id": (answer.identity.principal_id or "") if answer.identity is not None else "",
        "data_disks": [disk if disk.id else disk.model_copy(update={"id": disk_id(disk.name)})
                       for disk in inventory.data_disks],
    })


async def _unique_ids(clients: AzureClients, rg: str, attach: list[DataDiskRef]) -> dict[str, str]:
    """Disk name -> uniqueId of the data disks to attach (the status shows it): read only where the caller
    does not know it (find_vm lists what exists, and ARM's list carries no uniqueId)."""
    known = {disk.name: disk.unique_id for disk in attach if disk.unique_id}
    missing = [disk.name for disk in attach if not disk.unique_id]
    if missing:
        async with classified("read the data disks to attach"):
            bodies = await asyncio.gather(*(get_or_none(clients.compute.disks.get(rg, name)) for name in missing))
        known |= {str(body.name): str(body.unique_id) for body in bodies if body is not None and body.unique_id}
    return known


async def _put(clients: AzureClients, spec: MachineSpec, body: cm.VirtualMachine, *,
               etag: str | None = None, final_get: bool = True) -> cm.VirtualMachine | None:
    """The VM PUT, waited for. Without `etag` it may only create (If-None-Match: *): None when a VM of that
    name exists, so no write ever lands on a VM whose owner was not checked, with no GET before a create.
    With `etag` it may only change the VM as read (If-Match); a failed create's disks are tagged.
    Without `final_get` the answer is the PUT's own (the VM as accepted, its operation since Succeeded)."""
    vms = clients.compute.virtual_machines
    condition = MatchConditions.IfNotModified if etag else MatchConditions.IfMissing
    try:
        async with classified(f"create VM {spec.name}"):
            try:
                # A create is waited for on the shared status reads; a change of a VM still provisioning polls.
                polling = clients.polling(final_get=final_get) if etag else \
                    clients.vm_polling(spec.resource_group, spec.name, until_created, final_get=final_get)
                poller = await vms.begin_create_or_update(
                    spec.resource_group, spec.name, body, etag=etag, match_condition=condition, polling=polling)
            except (ResourceExistsError, ResourceModifiedError) as exc:
                if exc.status_code != HTTPStatus.PRECONDITION_FAILED:
                    raise  # a 409 (say, AnotherOperationInProgress) is Azure refusing, not our condition
                return None  # 412: not the absence (or the version) the PUT was conditioned on
            return await wait_heartbeating(poller)
    except ApplicationError:
        await _tag_disks_of_failed_create(clients, spec)
        raise


async def ensure_vm(clients: AzureClients, inp: EnsureVmInput) -> Inventory:
    spec = inp.spec
    vms = clients.compute.virtual_machines
    owner = owner_of(clients, spec.resource_group, spec.name)
    body = build_vm(spec, inp.nic_id, owner.tags(spec), inp.attach)
    attached = [disk.name for disk in inp.attach]
    known = await _unique_ids(clients, spec.resource_group, inp.attach)

    def resume(token: str) -> Any:
        return vms.begin_create_or_update(spec.resource_group, spec.name, body, continuation_token=token,
                                          polling=clients.vm_polling(spec.resource_group, spec.name, until_created,
                                                                     final_get=True))

    async with classified(f"create VM {spec.name}"):
        _, vm = await resume_operation(spec.name, resume)
    created = False
    if vm is None and inp.vm_absent:
        log_start(spec.name, "creating VM (%s in %s)%s", spec.vm_size, spec.location,
            f", attaching existing data disks {', '.join(attached)}" if attached else "")
        vm = await _put(clients, spec, body, final_get=False)
        created = vm is not None
    if vm is None:  # whether a VM of this name exists, whose it is, and how it is
        vm = await after_operation_in_flight(clients, owner, spec.resource_group, spec.name,
                                             await get_vm(clients, spec.resource_group, spec.name))
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
        # None: create. Ours in another state (say, Deleting): PUT on that very version, which Azure may refuse.
        if vm is None:
            log_start(spec.name, "creating VM (%s in %s)%s", spec.vm_size, spec.location,
                f", attaching existing data disks {', '.join(attached)}" if attached else "")
        vm = await _put(clients, spec, body, etag=vm.etag if vm is not None else None)
        if vm is None:
            raise error(ErrorType.TRANSIENT, f"VM {spec.name} changed while it was being created; checking again")
    clients.read_cache.saw_vm(spec.resource_group, spec.name, vm)
    if created:
        inventory = created_inventory(body, vm)
    else:
        inventory = vm_inventory(vm)
    if not created and vm.provisioning_state == "Failed":
        await _tag_disks_of_failed_create(clients, spec)
        raise failed_vm_error(vm)
    known |= await tag_vm_disks(clients, spec, inventory, created=True, attached=attached)
    log(spec.name, "VM ready: %s", inventory.summary())
    return inventory.with_unique_ids(known)
