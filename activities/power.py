"""power_off: graceful shutdown before deletion (the drain step). A missing or stopped VM needs nothing."""

from activities.arm import classified, log, resume_operation, wait_heartbeating
from activities.clients import AzureClients
from activities.ownership import owner_of
from activities.status import get_vm, vm_state
from models.activity_io import MachineRef

_ALREADY_OFF = {"stopped", "stopping", "deallocated", "deallocating"}


async def power_off(clients: AzureClients, machine: MachineRef) -> None:
    rg, name = machine.resource_group, machine.name
    vms = clients.compute.virtual_machines
    async with classified(f"power off VM {name}"):
        resumed, _ = await resume_operation(name, lambda token: vms.begin_power_off(rg, name,
                                                                                    continuation_token=token))
    if resumed:
        log(name, "VM powered off (resumed operation)")
        return
    vm = await get_vm(clients, rg, name)
    if vm is None:
        log(name, "VM does not exist; nothing to power off")
        return
    owner_of(clients, rg, name).require("VM", name, vm.tags)
    if vm_state(vm).power_state in _ALREADY_OFF:
        log(name, "VM is already %s", vm_state(vm).power_state)
        return
    log(name, "powering off VM (graceful shutdown)")
    async with classified(f"power off VM {name}"):
        await wait_heartbeating(await vms.begin_power_off(rg, name, skip_shutdown=False))
    log(name, "VM powered off")
