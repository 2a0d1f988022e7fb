"""Deterministic Azure names and tags (MCM-compatible). Pure, so workflows can use them too."""

MACHINE_TAG = "azmc-machine"
POOL_TAG = "azmc-pool"


def nic_name(vm_name: str) -> str:
    return f"{vm_name}-nic"


def os_disk_name(vm_name: str) -> str:
    return f"{vm_name}-os-disk"


def data_disk_name(vm_name: str, lun: int, disk_name: str = "") -> str:
    if disk_name:
        return f"{vm_name}-{disk_name}-{lun}-data-disk"
    return f"{vm_name}-{lun}-data-disk"


def workflow_id(resource_group: str, name: str) -> str:
    return f"machine/{resource_group}/{name}"


def provider_id(vm_arm_id: str) -> str:
    """The Kubernetes cloud-provider form of a VM id."""
    return f"azure://{vm_arm_id}"
