"""Re-creating a VM without losing data: the data disks that exist are kept and attached to the new VM.

Only `delete` (and the compensation of a disk the same failed attempt just created empty) deletes a
data disk. The OS disk is cattle: it goes with the VM and is created again from the image.
"""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.inventory import DataDiskRef, Inventory
    from models.naming import os_disk_name
    from models.spec import MachineSpec
    from models.status import OperationState, Stage

from workflows.azure_calls import AzureCalls
from workflows.machine.bookkeeping import Machine


def disk_names(disks: list[DataDiskRef]) -> str:
    return ", ".join(disk.name for disk in disks)


def _of_spec(spec: MachineSpec, disks: list[DataDiskRef]) -> list[DataDiskRef]:
    """The disks among `disks` that are data disks of the spec (by name): those the new VM attaches."""
    wanted = {name.lower() for name in spec.all_disk_names()[1:]}
    return [disk for disk in disks if disk.name.lower() in wanted and disk.id]


def created_by_attempt(spec: MachineSpec, attach: list[DataDiskRef]) -> list[str]:
    """The disks an attempt that attaches `attach` creates: the OS disk and the missing data disks (empty)."""
    kept = {disk.name.lower() for disk in attach}
    return [os_disk_name(spec.name)] + [name for name in spec.all_disk_names()[1:] if name.lower() not in kept]


async def make_data_disks_survive(machine: Machine, azure: AzureCalls, inventory: Inventory, stage: Stage) -> None:
    """A VM of an older azmc has deleteOption Delete on its data disks: set Detach before deleting it. The
    activity fails (an ActivityError) unless Azure confirms it, so the VM is never deleted with its data."""
    doomed = [disk for disk in inventory.data_disks if not disk.survives_vm_delete]
    if not doomed:
        return
    machine.operation(stage, OperationState.PROCESSING,
                      f"data disks {disk_names(doomed)} would be deleted with VM {inventory.node_name} "
                      "(deleteOption Delete, set by an older azmc): setting Detach first")
    await azure.set_data_disk_delete_option("Detach")


async def disks_to_attach(machine: Machine, azure: AzureCalls, inventory: Inventory) -> list[DataDiskRef]:
    """Clear the way for ensure_vm; returns the data disks that exist, for the new VM to attach.

    A Failed VM is deleted (its data disks kept: Detach); a VM still being provisioned is left to
    ensure_vm, attaching its own disks; without a VM, find_vm has read which data disks exist.
    """
    spec = azure.spec
    if not inventory.has_vm:
        return _of_spec(spec, inventory.data_disks)
    kept = _of_spec(spec, inventory.data_disks)
    if not inventory.vm_failed:
        return kept
    await make_data_disks_survive(machine, azure, inventory, Stage.CREATE)
    state = inventory.vm_state
    keeping = f", keeping data disks {disk_names(kept)}" if kept else ""
    machine.operation(Stage.CREATE, OperationState.PROCESSING,
                      f"VM {inventory.node_name} is {state.provisioning_state}/{state.power_state or '?'}: "
                      f"deleting it{keeping}, before creating it again")
    await azure.delete_vm(True)
    return kept
