"""Azure refuses a VM whose size cannot do accelerated networking on a NIC that enables it (400
VMSizeIsNotPermittedToEnableAcceleratedNetworking), naming the size and the VM. Sizes the emulator does not
know (emulator/compute/allocation/size_capabilities.py) are not refused: it does not guess."""

from __future__ import annotations

from typing import Any

from emulator.arm import errors
from emulator.arm.store import Resource
from emulator.compute.allocation.size_capabilities import capabilities_of, known_sizes


def check_accelerated_networking(vm_id: str, props: dict[str, Any], nics: list[Resource]) -> None:
    size = str((props.get("hardwareProfile") or {}).get("vmSize") or "")
    caps = capabilities_of(size)
    if caps is None or caps.accelerated_networking:
        return
    if any(nic.properties.get("enableAcceleratedNetworking") for nic in nics):
        allowed = ", ".join(s for s in known_sizes() if (capabilities_of(s) or caps).accelerated_networking)
        raise errors.ArmError(
            400, "VMSizeIsNotPermittedToEnableAcceleratedNetworking",
            f"Virtual Machine size {size} is not in the allowed list of VM sizes for accelerated networking to be "
            f"enabled on the VM at index 0 for VM {vm_id}. Allowed sizes: {allowed}.")
