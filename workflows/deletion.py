"""Deletion stages (MCM's names): drain, VM, NIC, disks, then verify that nothing is left.

Used for `delete` / cancellation, and to clean up a machine whose creation timed out. Each stage
retries forever (capped backoff, visible in current details); the flow ends only when Azure
reports nothing of the machine.
"""

from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.inventory import Inventory
    from models.status import OperationState, Stage

from workflows import policies
from workflows.azure_calls import AzureCalls, error_text
from workflows.presentation import Presenter
from workflows.retrying import delete_or_gone, until_done


async def _read(p: Presenter, azure: AzureCalls, stage: Stage) -> Inventory:
    inventory = await until_done(p, stage, "read what exists", azure.machine_status)
    p.inventory(inventory)
    return inventory


async def _drain(p: Presenter, azure: AzureCalls, drain_timeout: timedelta) -> None:
    """Graceful power-off, bounded by the drain timeout; deletion goes on whatever happens."""
    p.operation(Stage.INITIATE_DRAIN, OperationState.PROCESSING, f"powering off (at most {drain_timeout})")
    try:
        await azure.power_off(drain_timeout)
    except ActivityError as err:
        p.operation(Stage.INITIATE_DRAIN, OperationState.FAILED, "drain did not finish; deleting anyway",
                    error=error_text(err))
        return
    p.operation(Stage.INITIATE_DRAIN, OperationState.SUCCESSFUL, "VM powered off")


async def remove_everything(
    p: Presenter, azure: AzureCalls, *, drain: bool, force: bool, drain_timeout: timedelta
) -> None:
    """Run the stages until the inventory is empty. Returns only when nothing of the machine exists."""
    if azure.in_flight:
        # An interrupted create may still be sending its PUT: let it land, then clean up after it.
        p.operation(Stage.INITIATE_VM_DELETION, OperationState.PROCESSING,
                    f"waiting for {azure.in_flight} interrupted Azure call(s) to end")
        await azure.settle()
    inventory = await _read(p, azure, Stage.INITIATE_VM_DELETION)
    passes = 0
    while not inventory.is_empty:
        passes += 1
        if passes > 1:
            # Something survived a whole pass (index lag, a resource re-appearing): breathe, go again.
            delay = policies.capped_backoff(passes - 1, policies.CLEANUP_BACKOFF_START, policies.CLEANUP_BACKOFF_CAP)
            p.operation(Stage.VERIFY_DELETION, OperationState.FAILED,
                        f"still exists after pass {passes - 1}: {inventory.summary()}; next pass in {humanize(delay)}",
                        retry_in=delay)
            await workflow.sleep(delay, summary="verify deletion: wait before the next pass")
        # Drain only a VM that is actually running, once, and never when forced.
        if drain and passes == 1 and not force and inventory.vm_healthy:
            await _drain(p, azure, drain_timeout)
        if inventory.has_vm:
            await delete_or_gone(p, Stage.INITIATE_VM_DELETION, f"delete VM {inventory.node_name}",
                                 lambda: azure.delete_vm(force))
            # The VM's NIC and disks go with it (deleteOption: Delete); ask what is really left.
            inventory = await _read(p, azure, Stage.INITIATE_NIC_DELETION)
            if inventory.is_empty:
                break
        else:
            p.operation(Stage.INITIATE_VM_DELETION, OperationState.SUCCESSFUL,
                        "no VM (a leftover NIC or disk is never a VM): NIC and disks next")
        for nic in inventory.nic_names:
            await delete_or_gone(p, Stage.INITIATE_NIC_DELETION, f"delete NIC {nic}",
                                 lambda nic=nic: azure.delete_nic(nic))
        for disk in inventory.disk_names:
            await delete_or_gone(p, Stage.INITIATE_DISK_DELETION, f"delete disk {disk}",
                                 lambda disk=disk: azure.delete_disk(disk))
        p.operation(Stage.VERIFY_DELETION, OperationState.PROCESSING, "checking that nothing is left")
        inventory = await _read(p, azure, Stage.VERIFY_DELETION)
    p.operation(Stage.VERIFY_DELETION, OperationState.SUCCESSFUL, "nothing of the machine exists in Azure")
