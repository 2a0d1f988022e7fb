"""The repair ladder's Azure steps: restart (same host, guest rebooted) and redeploy (a new host, the same disks
and NIC). Both keep the VM; a VM that is gone or not running is the workflow's to handle, never rebuilt here."""

from collections.abc import Awaitable, Callable
from typing import Any

from azure.core.polling import AsyncLROPoller

from activities.arm import classified, log, log_start, resume_operation, wait_heartbeating
from activities.clients import AzureClients
from activities.errors import error
from activities.power import owned_vm
from activities.reading.vm import vm_inventory
from models.activity_io import MachineRef
from models.errors import ErrorType
from models.inventory import Inventory, VmState

Begin = Callable[..., Awaitable[AsyncLROPoller[Any]]]


async def _repair(clients: AzureClients, machine: MachineRef, verb: str, begin: Begin) -> Inventory:
    """Finish an operation a previous attempt started (its heartbeated token), else check the VM is ours and
    take the step. The inventory is the VM's as Azure reports it once the operation succeeded."""
    rg, name = machine.resource_group, machine.name
    async with classified(f"{verb} VM {name}"):
        resumed, _ = await resume_operation(name, lambda token: begin(rg, name, continuation_token=token,
                                                                      polling=clients.polling()))
    vm = await owned_vm(clients, machine)
    if vm is None:
        raise error(ErrorType.NOT_FOUND, f"{verb} VM {name}: the VM does not exist (any more)")
    inventory = vm_inventory(vm)
    if not resumed:
        log_start(name, "%s of the %s VM", verb, inventory.vm_state.power_state or "?")
        async with classified(f"{verb} VM {name}"):
            await wait_heartbeating(await begin(rg, name, polling=clients.polling()))
    log(name, "VM %s done%s", verb, " (resumed operation)" if resumed else "")
    # The guest boots again: its agent's status is unknown until the next read.
    return inventory.model_copy(update={"vm_state": VmState(provisioning_state="Succeeded", power_state="running")})


async def restart_vm(clients: AzureClients, machine: MachineRef) -> Inventory:
    return await _repair(clients, machine, "restart", clients.compute.virtual_machines.begin_restart)


async def redeploy_vm(clients: AzureClients, machine: MachineRef) -> Inventory:
    return await _repair(clients, machine, "redeploy", clients.compute.virtual_machines.begin_redeploy)
