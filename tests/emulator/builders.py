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


def vm_body(name: str, nic_id: str, *, data_disks: int = 1, delete_option: str = "Delete",
            tags: dict[str, str] | None = None) -> cm.VirtualMachine:
    return cm.VirtualMachine(
        location=LOCATION,
        tags=tags or {"azmc-machine": name},
        hardware_profile=cm.HardwareProfile(vm_size="Standard_D2s_v5"),
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
            ],
        ),
        os_profile=cm.OSProfile(
            computer_name=name, admin_username="azmc", admin_password="never-echoed-1A!",
            linux_configuration=cm.LinuxConfiguration(disable_password_authentication=False),
        ),
        network_profile=cm.NetworkProfile(network_interfaces=[
            cm.NetworkInterfaceReference(id=nic_id, primary=True, delete_option=delete_option),
        ]),
    )
