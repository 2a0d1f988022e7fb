"""A VM an earlier attempt is still creating: waited for, never written to again while Azure works on it.

A worker killed after its VM PUT but before its first heartbeat leaves the next attempt no continuation token:
that attempt finds the VM its own and Creating. A second PUT then is refused (409 AnotherOperationInProgress),
and the machine would delete and rebuild a VM that was about to be fine (seen in `bench.scale_out` when a worker
was SIGKILLed mid-fleet). So the attempt waits on the shared status reads until Azure ends the first operation,
then reads the VM as any attempt would.
"""

import asyncio
from typing import TypeGuard

from azure.mgmt.compute import models as cm

from activities.arm import heartbeat_until, log
from activities.clients import AzureClients
from activities.ownership import Owner
from activities.reading.vm import get_vm
from activities.reading.vm_statuses import BUSY, SteppedAside, Verdict, VmStatus

# An operation at work on the VM; a VM being deleted is not waited for here (a create meets it as a conflict).
IN_FLIGHT = BUSY - {"deleting"}


def _in_flight(vm: cm.VirtualMachine | None) -> TypeGuard[cm.VirtualMachine]:
    return vm is not None and (vm.provisioning_state or "").lower() in IN_FLIGHT


def _settled(status: VmStatus | None) -> Verdict:
    return Verdict.WAIT if status is not None and status.provisioning in IN_FLIGHT else Verdict.DONE


async def after_operation_in_flight(clients: AzureClients, owner: Owner, resource_group: str, name: str,
                                    vm: cm.VirtualMachine | None) -> cm.VirtualMachine | None:
    """`vm` as it is once no operation works on it any more (None: gone); at once when none does. Only our own
    VM is waited for."""
    while _in_flight(vm):
        owner.require("VM", name, vm.tags)
        log(name, "VM is %s by an earlier attempt: waiting for Azure to end that operation",
            (vm.provisioning_state or "").lower())
        try:
            board = clients.status_board()
            await heartbeat_until(board.wait(clients.vm_id(resource_group, name), _settled,
                                             clients.polling_interval_s), "")
        except SteppedAside:
            await heartbeat_until(asyncio.sleep(clients.polling_interval_s), "")
        found = await get_vm(clients, resource_group, name)
        if found is None:
            return None
        vm = found
    return vm
