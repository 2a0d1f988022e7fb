"""Build the VM PUT body from a MachineSpec with the SDK's model classes (ARM camelCase, `properties` nesting)."""

from collections.abc import Sequence

from azure.mgmt.compute import models as cm

from activities.vm_body_placement import apply_disks_and_placement
from activities.vm_features_body import add_vm_features
from models.bootstrap import to_base64
from models.inventory import DataDiskRef
from models.naming import data_disk_name, os_disk_name
from models.spec import DataDisk, MachineSpec, Priority


def _image(spec: MachineSpec) -> cm.ImageReference:
    if spec.image.id:
        return cm.ImageReference(id=spec.image.id)
    return cm.ImageReference(
        publisher=spec.image.publisher, offer=spec.image.offer, sku=spec.image.sku, version=spec.image.version
    )


def _data_disk(spec_disk: DataDisk, name: str, existing: DataDiskRef | None) -> cm.DataDisk:
    # deleteOption Detach: deleting the VM (a recovery, an operator) never deletes data; only azmc's
    # `delete` does, disk by disk.
    if existing is not None:
        return cm.DataDisk(
            name=name, lun=spec_disk.lun, create_option=cm.DiskCreateOptionTypes.ATTACH,
            managed_disk=cm.ManagedDiskParameters(id=existing.id),
            delete_option=cm.DiskDeleteOptionTypes.DETACH,
        )
    return cm.DataDisk(
        name=name,
        lun=spec_disk.lun,
        create_option=cm.DiskCreateOptionTypes.EMPTY,
        disk_size_gb=spec_disk.size_gb,
        managed_disk=cm.ManagedDiskParameters(storage_account_type=spec_disk.sku),
        delete_option=cm.DiskDeleteOptionTypes.DETACH,
    )


def _storage(spec: MachineSpec, attach: Sequence[DataDiskRef]) -> cm.StorageProfile:
    # The OS disk is cattle: deleteOption Delete, it goes with the VM in the same ARM operation.
    os_disk = cm.OSDisk(
        name=os_disk_name(spec.name),
        create_option=cm.DiskCreateOptionTypes.FROM_IMAGE,
        caching=cm.CachingTypes.READ_WRITE,
        disk_size_gb=spec.os_disk.size_gb,
        managed_disk=cm.ManagedDiskParameters(storage_account_type=spec.os_disk.sku),
        delete_option=cm.DiskDeleteOptionTypes.DELETE,
    )
    existing = {disk.name.lower(): disk for disk in attach if disk.id}
    data_disks = []
    for disk in sorted(spec.data_disks, key=lambda d: d.lun):
        name = data_disk_name(spec.name, disk.lun, disk.name)
        data_disks.append(_data_disk(disk, name, existing.get(name.lower())))
    return cm.StorageProfile(image_reference=_image(spec), os_disk=os_disk, data_disks=data_disks)


def _os_profile(spec: MachineSpec) -> cm.OSProfile:
    key_path = f"/home/{spec.admin_username}/.ssh/authorized_keys"
    return cm.OSProfile(
        computer_name=spec.name,
        admin_username=spec.admin_username,
        custom_data=to_base64(spec.custom_data),
        linux_configuration=cm.LinuxConfiguration(
            disable_password_authentication=True,
            ssh=cm.SshConfiguration(public_keys=[cm.SshPublicKey(path=key_path, key_data=spec.ssh_public_key)]),
        ),
    )


def build_vm(spec: MachineSpec, nic_id: str, tags: dict[str, str],
             attach: Sequence[DataDiskRef] = ()) -> cm.VirtualMachine:
    """The VM PUT body; `tags`: activities.ownership.Owner.tags(spec), the only source of a resource's tags;
    `attach`: data disks that exist already (attached by id, never created again)."""
    vm = cm.VirtualMachine(  # type: ignore[call-overload]  # azure-mgmt's models take flattened properties, which their signatures omit
        location=spec.location,
        tags=tags,
        hardware_profile=cm.HardwareProfile(vm_size=spec.vm_size),
        storage_profile=_storage(spec, attach),
        os_profile=_os_profile(spec),
        network_profile=cm.NetworkProfile(
            network_interfaces=[
                cm.NetworkInterfaceReference(id=nic_id, primary=True, delete_option=cm.DeleteOptions.DELETE)  # type: ignore[call-overload]  # azure-mgmt's models take flattened properties, which their signatures omit
            ]
        ),
    )
    vm.user_data = to_base64(spec.user_data)
    if spec.zone:
        vm.zones = [spec.zone]
    if spec.priority == Priority.SPOT:
        spot = spec.spot
        vm.priority = cm.VirtualMachinePriorityTypes.SPOT
        vm.eviction_policy = spot.eviction_policy if spot else "Delete"
        vm.billing_profile = cm.BillingProfile(max_price=spot.max_price if spot else -1)
    add_vm_features(vm, spec)
    apply_disks_and_placement(vm, spec)
    return vm
