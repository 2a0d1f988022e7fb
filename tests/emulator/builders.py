"""Request bodies built with the SDK's model classes (they serialize to ARM's camelCase shape)."""

from __future__ import annotations

from azure.mgmt.compute import models as cm
from azure.mgmt.network import models as nm

from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP

RG = SEED_RESOURCE_GROUP
LOCATION = SEED_LOCATION


def nic_body(subnet_id: str, tags: dict[str, str] | None = None) -> nm.NetworkInterface:
    return nm.NetworkInterface(
        location=LOCATION,
        tags=tags or {"azmc-machine": "test"},
        ip_configurations=[nm.NetworkInterfaceIPConfiguration(
            name="ipconfig1", subnet=nm.Subnet(id=subnet_id), private_ip_allocation_method="Dynamic",
            primary=True,
        )],
    )


def attach_disk(lun: int, disk_id: str, delete_option: str = "Detach") -> cm.DataDisk:
    """A data disk entry that attaches an existing managed disk."""
    return cm.DataDisk(lun=lun, create_option="Attach", delete_option=delete_option,
                       managed_disk=cm.ManagedDiskParameters(id=disk_id))


def empty_disk(size_gb: int = 8) -> cm.Disk:
    return cm.Disk(location=LOCATION, disk_size_gb=size_gb, creation_data=cm.CreationData(create_option="Empty"))


def vm_body(name: str, nic_id: str, *, data_disks: int = 1, delete_option: str = "Delete",
            tags: dict[str, str] | None = None, attach: list[cm.DataDisk] | None = None,
            eviction_policy: str | None = None, vm_size: str = "Standard_D2s_v5",
            zones: list[str] | None = None) -> cm.VirtualMachine:
    """A Linux VM on `nic_id`; `attach` adds existing disks; `eviction_policy` makes it a Spot VM; `zones`
    pins it to a zone (regional without)."""
    spot = {"priority": "Spot", "eviction_policy": eviction_policy,
            "billing_profile": cm.BillingProfile(max_price=-1)} if eviction_policy else {}
    return cm.VirtualMachine(
        **spot,
        location=LOCATION,
        zones=zones,
        tags=tags or {"azmc-machine": name},
        hardware_profile=cm.HardwareProfile(vm_size=vm_size),
        storage_profile=cm.StorageProfile(
            image_reference=cm.ImageReference(publisher="Canonical", offer="ubuntu-24_04-lts",
                                              sku="server", version="latest"),
            os_disk=cm.OSDisk(name=f"{name}-os-disk", create_option="FromImage", disk_size_gb=30,
                              delete_option=delete_option,
                              managed_disk=cm.ManagedDiskParameters(storage_account_type="StandardSSD_LRS")),
            data_disks=[
                cm.DataDisk(lun=lun, name=f"{name}-{lun}-data-disk", create_option="Empty", disk_size_gb=10,
                            delete_option=delete_option,
                            managed_disk=cm.ManagedDiskParameters(storage_account_type="Premium_LRS"))
                for lun in range(data_disks)
            ] + (attach or []),
        ),
        os_profile=cm.OSProfile(
            computer_name=name, admin_username="azmc", admin_password="never-echoed-1A!",
            linux_configuration=cm.LinuxConfiguration(disable_password_authentication=False),
        ),
        network_profile=cm.NetworkProfile(network_interfaces=[
            cm.NetworkInterfaceReference(id=nic_id, primary=True, delete_option=delete_option),
        ]),
    )
