"""Deletion stages (MCM's names): drain, VM, NIC, disks, then verify that nothing is left.

Used for `delete` / cancellation (everything goes, data disks included), and to clean up a machine whose
creation timed out (everything but the data disks). Each stage retries forever (capped backoff, visible
in current details and `status.stalled`); NICs and disks that do not depend on each other are deleted
side by side, so one that cannot be deleted never keeps the others alive. The flow ends only when
Azure reports nothing of the machine (but the data disks it was told to keep).
"""

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from models.durations import humanize
    from models.inventory import DataDiskRef, Inventory
    from models.status import OperationState, Stage

from workflows import policies
from workflows.azure_calls import AzureCalls, error_text
from workflows.machine.bookkeeping import Machine
from workflows.machine.recovery import disk_names, make_data_disks_survive
from workflows.machine.retrying import delete_or_gone, until_done


async def _read(machine: Machine, azure: AzureCalls, stage: Stage) -> Inventory:
    inventory = await until_done(machine, stage, "read what exists", azure.read_inventory)
    machine.inventory(inventory)
    return inventory


def _to_remove(inventory: Inventory, keep_data_disks: bool) -> Inventory:
    """What must go: everything, or everything but the data disks."""
    if not keep_data_disks:
        return inventory
    kept = {disk.name.lower() for disk in inventory.data_disks}
    return inventory.model_copy(update={"disk_names": [d for d in inventory.disk_names if d.lower() not in kept]})


async def _drain(machine: Machine, azure: AzureCalls, drain_timeout: timedelta) -> None:
    """Graceful power-off, bounded by the drain timeout; deletion goes on whatever happens."""
    machine.operation(Stage.INITIATE_DRAIN, OperationState.PROCESSING, f"powering off (at most {drain_timeout})")
    try:
        await azure.power_off(drain_timeout)
    except ActivityError as err:
        machine.operation(Stage.INITIATE_DRAIN, OperationState.FAILED, "drain did not finish; deleting anyway",
                          error=error_text(err))
        return
    machine.operation(Stage.INITIATE_DRAIN, OperationState.SUCCESSFUL, "VM powered off")


async def _data_disks_go_with_the_vm(machine: Machine, azure: AzureCalls, inventory: Inventory) -> None:
    """`delete` deletes the data too: with deleteOption Delete they go in the VM's own delete, one ARM
    request instead of a delete (and a read) per disk. Best effort: if it fails, they are deleted one by one."""
    detached = [disk for disk in inventory.data_disks if disk.delete_option.lower() != "delete"]
    if not detached:
        return
    try:
        await azure.set_data_disk_delete_option("Delete")
    except ActivityError as err:
        machine.operation(Stage.INITIATE_VM_DELETION, OperationState.FAILED,
                          f"could not set deleteOption Delete on data disks {disk_names(detached)}: "
                          "deleting them one by one after the VM", error=error_text(err))
        return
    machine.operation(Stage.INITIATE_VM_DELETION, OperationState.PROCESSING,
                      f"data disks {disk_names(detached)} go with the VM (deleteOption Delete)")


def _steps(azure: AzureCalls, inventory: Inventory) -> list[tuple[Stage, str, str, Callable[[], Awaitable[None]]]]:
    """(stage, description, resource name, delete) for each NIC and disk."""
    nics = [(Stage.INITIATE_NIC_DELETION, f"delete NIC {nic}", nic, lambda nic=nic: azure.delete_nic(nic))
            for nic in inventory.nic_names]
    disks = [(Stage.INITIATE_DISK_DELETION, f"delete disk {disk}", disk, lambda disk=disk: azure.delete_disk(disk))
             for disk in inventory.disk_names]
    return [*nics, *disks]


async def _delete_one(machine: Machine, stage: Stage, description: str, name: str,
                      action: Callable[[], Awaitable[None]]) -> None:
    """Delete one resource; once Azure says it is gone, the status stops listing it (not at the next read: a
    step that stalls beside it can keep the next read away for long)."""
    if await delete_or_gone(machine, stage, description, action):
        machine.gone(name)


async def _delete_side_by_side(machine: Machine, azure: AzureCalls, inventory: Inventory) -> None:
    """Each NIC and disk in its own retry loop: a stalled one is shown, and the others go on. Public IPs
    after the NICs (Azure refuses to delete one a NIC holds)."""
    await _in_parallel([_delete_one(machine, stage, description, name, action)
                        for stage, description, name, action in _steps(azure, inventory)])
    await _in_parallel([_delete_one(machine, Stage.INITIATE_NIC_DELETION, f"delete public IP {pip}", pip,
                                    lambda pip=pip: azure.delete_public_ip(pip))  # type: ignore[misc]  # mypy cannot type a lambda's default argument
                        for pip in inventory.public_ip_names])


async def _in_parallel(flows: list[Awaitable[None]]) -> None:
    if not flows:
        return
    tasks = [asyncio.ensure_future(flow) for flow in flows]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        # One step must continue as new (or the flow is cancelled): stop the others where they wait.
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def remove_everything(
    machine: Machine, azure: AzureCalls, *, drain: bool, force: bool, drain_timeout: timedelta,
    keep_data_disks: bool = False,
) -> list[DataDiskRef]:
    """Run the stages until nothing of the machine exists (but the data disks, with `keep_data_disks`).

    Returns the data disks kept (empty unless `keep_data_disks`)."""
    if azure.in_flight:
        # An interrupted create may still be sending its PUT: let it land, then clean up after it.
        machine.operation(Stage.INITIATE_VM_DELETION, OperationState.PROCESSING,
                          f"waiting for {azure.in_flight} interrupted Azure call(s) to end")
        await azure.settle()
    machine.clear_stalled()  # steps of an earlier run that no longer exist must not linger
    inventory = await _read(machine, azure, Stage.INITIATE_VM_DELETION)
    passes = 0
    while not _to_remove(inventory, keep_data_disks).is_empty:
        passes += 1
        if passes > 1:
            # Something survived a whole pass (index lag, a resource re-appearing): breathe, go again.
            delay = policies.capped_backoff(passes - 1, policies.CLEANUP_BACKOFF_START, policies.CLEANUP_BACKOFF_CAP)
            machine.operation(Stage.VERIFY_DELETION, OperationState.FAILED,
                              f"still exists after pass {passes - 1}: {inventory.summary()}; "
                              f"next pass in {humanize(delay)}", retry_in=delay)
            await workflow.sleep(delay, summary="verify deletion: wait before the next pass")
        # Drain only a VM that is actually running, once, and never when forced.
        if drain and passes == 1 and not force and inventory.vm_healthy:
            await _drain(machine, azure, drain_timeout)
        if inventory.has_vm:
            if not keep_data_disks:
                await _data_disks_go_with_the_vm(machine, azure, inventory)
            if keep_data_disks:
                await until_done(
                    machine, Stage.INITIATE_VM_DELETION, f"keep the data disks of VM {inventory.node_name}",
                    lambda vm=inventory: make_data_disks_survive(machine, azure, vm, Stage.INITIATE_VM_DELETION))  # type: ignore[misc]  # mypy cannot type a lambda's default argument
            await delete_or_gone(machine, Stage.INITIATE_VM_DELETION, f"delete VM {inventory.node_name}",
                                 lambda: azure.delete_vm(force))
            # The VM's NIC and OS disk go with it (deleteOption Delete), its data disks stay (Detach):
            # ask what is really left.
            inventory = await _read(machine, azure, Stage.INITIATE_NIC_DELETION)
            if _to_remove(inventory, keep_data_disks).is_empty:
                break
        else:
            machine.operation(Stage.INITIATE_VM_DELETION, OperationState.SUCCESSFUL,
                              "no VM (a leftover NIC or disk is never a VM): NIC and disks next")
        doomed = _to_remove(inventory, keep_data_disks)
        await _delete_side_by_side(machine, azure, doomed)
        machine.operation(Stage.VERIFY_DELETION, OperationState.PROCESSING, "checking that nothing is left")
        inventory = await _read(machine, azure, Stage.VERIFY_DELETION)
    kept = inventory.data_disks if keep_data_disks else []
    machine.operation(Stage.VERIFY_DELETION, OperationState.SUCCESSFUL,
                      f"nothing of the machine is left in Azure but its data disks {disk_names(kept)} (kept)" if kept
                      else "nothing of the machine exists in Azure")
    return kept
