"""Reading one VM: the GET with instanceView, and what azmc takes from it (power state, NICs, disks).

Shared by every activity that looks at a VM (inventory, ensure_vm, power, data disks).
"""

from typing import Any

from azure.mgmt.compute import models as cm
from azure.mgmt.compute.models import InstanceViewTypes

from activities.arm import classified, get_or_none, resource_name
from activities.clients import AzureClients
from models.foresight import RedeployWindow
from models.inventory import DataDiskRef, Inventory, VmState
from models.naming import provider_id


def vm_state(vm: cm.VirtualMachine) -> VmState:
    """provisioningState from the model; power state from instanceView's `PowerState/<x>` status; the VM
    agent's displayStatus and message from instanceView.vmAgent (absent when the VM is not running)."""
    power = ""
    view = vm.instance_view
    for status in (view.statuses if view and view.statuses else []):
        if status.code and status.code.startswith("PowerState/"):
            power = status.code.split("/", 1)[1]
    agent = view.vm_agent if view is not None else None
    first = agent.statuses[0] if agent is not None and agent.statuses else None
    return VmState(provisioning_state=vm.provisioning_state or "", power_state=power,
                   agent=(first.display_status or "") if first else "",
                   agent_message=(first.message or "") if first else "", redeploy_window=_redeploy_window(view))


def _redeploy_window(view: cm.VirtualMachineInstanceView | None) -> RedeployWindow | None:
    status = view.maintenance_redeploy_status if view is not None else None
    if status is None:
        return None
    return RedeployWindow(open_now=bool(status.is_customer_initiated_maintenance_allowed),
                          start=status.pre_maintenance_window_start_time,
                          end=status.pre_maintenance_window_end_time, azure_start=status.maintenance_window_start_time)


def _text(value: Any) -> str:
    """An SDK enum or plain string as its wire value."""
    return str(getattr(value, "value", value) or "")


def _data_disk_refs(storage: cm.StorageProfile | None) -> list[DataDiskRef]:
    refs = []
    for disk in (storage.data_disks or []) if storage is not None else []:
        managed_id = disk.managed_disk.id if disk.managed_disk else None
        refs.append(DataDiskRef(name=resource_name(managed_id) if managed_id else disk.name or "",
                                lun=disk.lun, id=managed_id or "", delete_option=_text(disk.delete_option)))
    return refs


def vm_inventory(vm: cm.VirtualMachine) -> Inventory:
    """The VM's own view: it names every NIC and disk attached to it."""
    nics = [resource_name(ref.id) for ref in (vm.network_profile.network_interfaces or [])
            if ref.id] if vm.network_profile else []
    disks: list[str] = []
    storage = vm.storage_profile
    if storage is not None:
        attached = ([storage.os_disk] if storage.os_disk else []) + list(storage.data_disks or [])
        for disk in attached:
            if isinstance(disk, cm.OSDisk) and disk.diff_disk_settings is not None:
                continue  # an ephemeral OS disk is no disk resource: nothing to tag, delete or verify gone
            managed_id = disk.managed_disk.id if disk.managed_disk else None
            name = resource_name(managed_id) if managed_id else disk.name
            if name:
                disks.append(name)
    return Inventory(
        provider_id=provider_id(vm.id or ""),
        node_name=vm.name or "",
        vm_state=vm_state(vm),
        nic_names=nics,
        disk_names=disks,
        data_disks=_data_disk_refs(storage),
        identity_principal_id=(vm.identity.principal_id or "") if vm.identity is not None else "",
    )


def disk_ref(disk: cm.Disk, lun: int = -1) -> DataDiskRef:
    return DataDiskRef(name=disk.name or "", lun=lun, id=disk.id or "", unique_id=disk.unique_id or "")


async def get_vm(clients: AzureClients, resource_group: str, name: str) -> cm.VirtualMachine | None:
    async with classified(f"get VM {name}"):
        vm = await get_or_none(clients.compute.virtual_machines.get(
            resource_group, name, expand=InstanceViewTypes.INSTANCE_VIEW))
    clients.read_cache.saw_vm(resource_group, name, vm)
    return vm
