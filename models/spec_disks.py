"""The OS disk's ephemeral option: Azure's `diffDiskSettings {option: Local, placement}`. The OS disk then lives
on the host's cache, resource (temp) or NVMe disk: fast and free, gone with the VM, and a VM with one cannot be
deallocated (activities/power.py powers it off instead). Whether the disk fits the size's local disk is Azure's
to say (it refuses with NotSupported; the machine names `os_disk.ephemeral`)."""

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class EphemeralPlacement(StrEnum):
    CACHE_DISK = "CacheDisk"
    RESOURCE_DISK = "ResourceDisk"
    NVME_DISK = "NvmeDisk"


class EphemeralOsDisk(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    placement: EphemeralPlacement = Field(
        EphemeralPlacement.CACHE_DISK,
        description="where the host keeps the OS disk: its cache disk, resource (temp) disk or NVMe disk; the OS "
                    "disk's size_gb must fit it")


def check_ephemeral_spot(ephemeral: EphemeralOsDisk | None, priority: str, eviction_policy: str) -> None:
    """A Spot VM is evicted by its policy; Deallocate needs a deallocatable VM, which an ephemeral one is not."""
    if ephemeral is not None and priority == "Spot" and eviction_policy == "Deallocate":
        raise ValueError("os_disk.ephemeral and spot.eviction_policy: a VM with an ephemeral OS disk cannot be "
                         "deallocated, so a Spot one needs eviction_policy Delete")
