"""What quota counts per VM size: its vCPUs and its quota family (the names `az vm list-usage` shows)."""

from __future__ import annotations

import re

# vCPUs of the sizes the tests, demo and docs use (Azure's published numbers).
_VCPUS = {
    "standard_b2s": 2, "standard_b2ms": 2, "standard_b4ms": 4,
    "standard_d2s_v3": 2, "standard_d4s_v3": 4, "standard_d8s_v3": 8,
    "standard_d2s_v5": 2, "standard_d4s_v5": 4, "standard_d8s_v5": 8, "standard_d16s_v5": 16,
    "standard_d2as_v5": 2, "standard_d4as_v5": 4, "standard_d2ds_v5": 2, "standard_d4ds_v5": 4,
    "standard_e2s_v5": 2, "standard_e4s_v5": 4, "standard_e8s_v5": 8,
    "standard_f2s_v2": 2, "standard_f4s_v2": 4,
}
# A size not in the table counts as this many vCPUs (the emulator does not know every size; say so
# rather than guess from the name, which is wrong for older series such as Standard_DS13).
UNKNOWN_SIZE_VCPUS = 2

# Standard_<series letters><vCPUs><feature letters>[_<version>], e.g. Standard_D4as_v5.
_SIZE_NAME = re.compile(r"^standard_([a-z]+)\d+(?:-\d+)?([a-z]*)(?:_(v\d+))?$", re.IGNORECASE)

# Quota names that are not a family: all regular vCPUs in a region, and Spot (low-priority) vCPUs.
TOTAL_REGIONAL = "cores"
LOW_PRIORITY = "lowPriorityCores"


def vcpus(vm_size: str) -> int:
    return _VCPUS.get(vm_size.lower(), UNKNOWN_SIZE_VCPUS)


def family(vm_size: str) -> str:
    """Azure's quota family of a size: Standard_D4s_v5 -> standardDSv5Family, Standard_B2s -> standardBSFamily."""
    match = _SIZE_NAME.match(vm_size)
    if match is None:
        return f"{vm_size}Family"
    series, features, version = match.groups()
    return f"standard{series.upper()}{features.upper()}{version or ''}Family"


# Local storage an ephemeral OS disk can be placed on, GiB: (cache disk, resource (temp) disk, NVMe disk), from
# Azure's size pages ("Max cached storage", "Temp storage"). 0: the size has none, so that placement is refused.
# v5 sizes have no cache; only their `d` variants have a temp disk.
_LOCAL_DISKS_GB = {
    "standard_b2s": (0, 8, 0), "standard_b2ms": (0, 16, 0), "standard_b4ms": (0, 32, 0),
    "standard_d2s_v3": (50, 16, 0), "standard_d4s_v3": (100, 32, 0), "standard_d8s_v3": (200, 64, 0),
    "standard_d2s_v5": (0, 0, 0), "standard_d4s_v5": (0, 0, 0), "standard_d8s_v5": (0, 0, 0),
    "standard_d16s_v5": (0, 0, 0), "standard_d2as_v5": (0, 0, 0), "standard_d4as_v5": (0, 0, 0),
    "standard_d2ds_v5": (0, 75, 0), "standard_d4ds_v5": (0, 150, 0),
    "standard_e2s_v5": (0, 0, 0), "standard_e4s_v5": (0, 0, 0), "standard_e8s_v5": (0, 0, 0),
    "standard_f2s_v2": (32, 16, 0), "standard_f4s_v2": (64, 32, 0),
}
EPHEMERAL_PLACEMENTS = ("CacheDisk", "ResourceDisk", "NvmeDisk")


def local_disk_gb(vm_size: str, placement: str) -> int | None:
    """GiB of the size's local disk an ephemeral OS disk with `placement` lives on; None: a size the emulator
    does not know (not checked)."""
    sizes = _LOCAL_DISKS_GB.get(vm_size.lower())
    if sizes is None:
        return None
    index = [p.lower() for p in EPHEMERAL_PLACEMENTS].index(placement.lower())
    return sizes[index]
