"""power_off (the drain step before deletion), start_vm (a stopped or deallocated VM is started, never
rebuilt) and deallocate_vm (a preserved machine: compute released, disks and NIC kept). A missing VM needs
no power-off or deallocation; a running one needs no start."""

from azure.mgmt.compute import models as cm

from activities.arm import classified, log, log_start, resume_operation, wait_heartbeating
from activities.clients import AzureClients
from activities.errors import error
from activities.ownership import owner_of
from activities.read_cache import TRUST_S
from activities.reading.vm import get_vm, vm_inventory, vm_state
from activities.reading.vm_statuses import until_powered
from models.activity_io import MachineRef
from models.errors import ErrorType
from models.inventory import STOPPED_POWER_STATES, Inventory, VmState

_ALREADY_ON = ("running", "starting")
STOPPED, RUNNING, DEALLOCATED = until_powered("stopped"), until_powered("running"), until_powered("deallocated")


async def owned_vm(clients: AzureClients, machine: MachineRef) -> cm.VirtualMachine | None:
    vm = await get_vm(clients, machine.resource_group, machine.name)
    if vm is not None:
        owner_of(clients, machine.resource_group, machine.name).require("VM", machine.name, vm.tags)
    return vm


async def power_off(clients: AzureClients, machine: MachineRef) -> None:
    rg, name = machine.resource_group, machine.name
    vms = clients.compute.virtual_machines
    async with classified(f"power off VM {name}"):
        resumed, _ = await resume_operation(name, lambda token: vms.begin_power_off(
            rg, name, continuation_token=token, polling=clients.vm_polling(rg, name, STOPPED)))
    if resumed:
        log(name, "VM powered off (resumed operation)")
        return
    # The VM `delete` read seconds ago (activities/read_cache.py) may stand for the check before the POST, but
    # only to power it off: "already stopped" is ARM's to say, never a remembered state's.
    vm = clients.read_cache.vm(rg, name, within_s=TRUST_S)
    if vm is None or vm_state(vm).power_state not in _ALREADY_ON:
        vm = await _seen_running(clients, machine)
    if vm is not None and vm_state(vm).power_state in _ALREADY_ON:
        owner_of(clients, rg, name).require("VM", name, vm.tags)
    else:
        vm = await owned_vm(clients, machine)
    if vm is None:
        log(name, "VM does not exist; nothing to power off")
        return
    if vm_state(vm).power_state in STOPPED_POWER_STATES:
        log(name, "VM is already %s", vm_state(vm).power_state)
        return
    log_start(name, "powering off VM (graceful shutdown)")
    async with classified(f"power off VM {name}"):
        await wait_heartbeating(await vms.begin_power_off(rg, name, skip_shutdown=False,
                                                          polling=clients.vm_polling(rg, name, STOPPED)))
    log(name, "VM powered off")


async def _seen_running(clients: AzureClients, machine: MachineRef) -> cm.VirtualMachine | None:
    """The VM as a crowd's shared reads saw it at most TRUST_S ago, running: its group's list (the model and tags,
    activities/reading/group_snapshots.py) and the status reads (the power state); None when they cannot say."""
    known, vm = await clients.snapshots.vm(machine.resource_group, machine.name, cm.VirtualMachine)
    if not known or vm is None or clients.statuses is None:
        return None
    known, status = clients.statuses.seen(str(vm.id), within_s=TRUST_S)
    if not known or status is None or status.provisioning != "succeeded" or status.power not in _ALREADY_ON:
        return None
    vm.instance_view = cm.VirtualMachineInstanceView(
        statuses=[cm.InstanceViewStatus(code=f"PowerState/{status.power}")])
    return vm


def _running(inventory: Inventory) -> Inventory:
    """The VM as it is once Azure reports the start operation succeeded (no extra GET to learn it)."""
    return inventory.model_copy(update={"vm_state": VmState(provisioning_state="Succeeded", power_state="running")})


async def start_vm(clients: AzureClients, machine: MachineRef) -> Inventory:
    """Power on a stopped or deallocated VM, keeping it, its disks and its NIC. AllocationFailed (no
    capacity to start a deallocated VM) comes back as CapacityExhausted, for the workflow to wait on."""
    rg, name = machine.resource_group, machine.name
    vms = clients.compute.virtual_machines
    async with classified(f"start VM {name}"):
        resumed, _ = await resume_operation(name, lambda token: vms.begin_start(
            rg, name, continuation_token=token, polling=clients.vm_polling(rg, name, RUNNING)))
    vm = await owned_vm(clients, machine)
    if vm is None:
        raise error(ErrorType.NOT_FOUND, f"start VM {name}: the VM does not exist (any more)")
    inventory = vm_inventory(vm)
    if resumed or inventory.vm_state.power_state in _ALREADY_ON:
        log(name, "VM is %s", "started (resumed operation)" if resumed else inventory.vm_state.power_state)
        return inventory
    log_start(name, "starting the %s VM", inventory.vm_state.power_state or "stopped")
    async with classified(f"start VM {name}"):
        await wait_heartbeating(await vms.begin_start(rg, name, polling=clients.vm_polling(rg, name, RUNNING)))
    log(name, "VM started")
    return _running(inventory)


def has_ephemeral_os_disk(vm: cm.VirtualMachine) -> bool:
    os_disk = vm.storage_profile.os_disk if vm.storage_profile else None
    return os_disk is not None and os_disk.diff_disk_settings is not None


async def deallocate_vm(clients: AzureClients, machine: MachineRef) -> Inventory:
    """Deallocate the VM (a `preserve`d machine): Azure releases its compute, keeps the VM, its disks and its
    NIC. The empty inventory when there is no VM; a VM already deallocated is left as it is.

    A VM with an ephemeral OS disk cannot be deallocated (Azure refuses: the disk lives on the host): it is
    powered off instead, which keeps it, its OS disk and its host (compute is still billed); its inventory
    says stopped."""
    rg, name = machine.resource_group, machine.name
    vms = clients.compute.virtual_machines
    async with classified(f"deallocate VM {name}"):
        resumed, _ = await resume_operation(name, lambda token: vms.begin_deallocate(
            rg, name, continuation_token=token, polling=clients.vm_polling(rg, name, DEALLOCATED)))
    vm = await owned_vm(clients, machine)
    if vm is None:
        log(name, "VM does not exist; nothing to deallocate")
        return Inventory()
    inventory = vm_inventory(vm)
    if has_ephemeral_os_disk(vm):
        await power_off(clients, machine)
        return inventory.model_copy(update={"vm_state": VmState(provisioning_state="Succeeded",
                                                                power_state="stopped")})
    if resumed or inventory.vm_state.power_state == "deallocated":
        log(name, "VM is deallocated%s", " (resumed operation)" if resumed else "")
        return _deallocated(inventory)
    log_start(name, "deallocating the %s VM (disks and NIC kept)", inventory.vm_state.power_state or "")
    async with classified(f"deallocate VM {name}"):
        await wait_heartbeating(await vms.begin_deallocate(rg, name, polling=clients.vm_polling(rg, name, DEALLOCATED)))
    log(name, "VM deallocated")
    return _deallocated(inventory)


def _deallocated(inventory: Inventory) -> Inventory:
    return inventory.model_copy(update={"vm_state": VmState(provisioning_state="Succeeded", power_state="deallocated")})
