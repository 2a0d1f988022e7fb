"""What each size the emulator knows can do, as the resource SKUs API states it (`capabilities` name/value).

Azure's published numbers for the sizes of vm_sizes.py. Other helpers' refusals (ephemeral OS disk,
encryption at host) and the accelerated-networking refusal read them here, so the SKU listing and the refusals
never disagree. A size not listed has no SKU entry and no capability-based refusal (the emulator does not guess).
"""

from __future__ import annotations

from dataclasses import dataclass

from emulator.compute.allocation import vm_sizes

GIB = 1024**3


# Every location the emulator serves has three availability zones (VM PUTs accept any of them).
REGION_ZONES = ("1", "2", "3")


@dataclass(frozen=True)
class SizeCapabilities:
    memory_gb: float
    accelerated_networking: bool
    cached_disk_bytes: int  # 0: no cache (an ephemeral OS disk cannot be placed there)
    max_resource_volume_mb: int  # 0: no temporary disk
    ephemeral_os_disk: bool
    encryption_at_host: bool = True
    # Ultra disks in every zone (the resource SKUs' `zoneDetails`): D, E and F sizes have them in Azure's zonal
    # regions; which zones of which region is Azure's to say, so the emulator says all.
    ultra_ssd: bool = True


_SIZES: dict[str, SizeCapabilities] = {
    # B-series v1: no accelerated networking.
    "Standard_B2s": SizeCapabilities(4, False, 0, 8192, False, ultra_ssd=False),
    "Standard_B2ms": SizeCapabilities(8, False, 0, 16384, False, ultra_ssd=False),
    "Standard_B4ms": SizeCapabilities(16, False, 0, 32768, False, ultra_ssd=False),
    "Standard_D2s_v3": SizeCapabilities(8, True, 50 * GIB, 16384, True),
    "Standard_D4s_v3": SizeCapabilities(16, True, 100 * GIB, 32768, True),
    "Standard_D8s_v3": SizeCapabilities(32, True, 200 * GIB, 65536, True),
    # v5 without a "d": no local disk, no cache.
    "Standard_D2s_v5": SizeCapabilities(8, True, 0, 0, False),
    "Standard_D4s_v5": SizeCapabilities(16, True, 0, 0, False),
    "Standard_D8s_v5": SizeCapabilities(32, True, 0, 0, False),
    "Standard_D16s_v5": SizeCapabilities(64, True, 0, 0, False),
    "Standard_D2as_v5": SizeCapabilities(8, True, 0, 0, False),
    "Standard_D4as_v5": SizeCapabilities(16, True, 0, 0, False),
    "Standard_D2ds_v5": SizeCapabilities(8, True, 0, 76800, True),
    "Standard_D4ds_v5": SizeCapabilities(16, True, 0, 153600, True),
    "Standard_E2s_v5": SizeCapabilities(16, True, 0, 0, False),
    "Standard_E4s_v5": SizeCapabilities(32, True, 0, 0, False),
    "Standard_E8s_v5": SizeCapabilities(64, True, 0, 0, False),
    "Standard_F2s_v2": SizeCapabilities(4, True, 32 * GIB, 16384, True),
    "Standard_F4s_v2": SizeCapabilities(8, True, 64 * GIB, 32768, True),
}
_BY_KEY = {name.lower(): (name, caps) for name, caps in _SIZES.items()}


def known_sizes() -> list[str]:
    return list(_SIZES)


def capabilities_of(vm_size: str) -> SizeCapabilities | None:
    found = _BY_KEY.get(vm_size.lower())
    return found[1] if found else None


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def sku_entry(name: str, location: str, zones: list[str]) -> dict[str, object]:
    """One `virtualMachines` entry of `GET .../providers/Microsoft.Compute/skus`, in Azure's shape."""
    caps = _SIZES[name]
    values = {
        "vCPUs": vm_sizes.vcpus(name),
        "MemoryGB": caps.memory_gb,
        "MaxResourceVolumeMB": caps.max_resource_volume_mb,
        "CachedDiskBytes": caps.cached_disk_bytes,
        "AcceleratedNetworkingEnabled": caps.accelerated_networking,
        "EphemeralOSDiskSupported": caps.ephemeral_os_disk,
        "EncryptionAtHostSupported": caps.encryption_at_host,
    }
    return {
        "resourceType": "virtualMachines",
        "name": name,
        "tier": "Standard",
        "size": name.removeprefix("Standard_"),
        "family": vm_sizes.family(name),
        "locations": [location],
        "locationInfo": [{"location": location, "zones": list(zones), "zoneDetails": [
            {"name": list(zones), "capabilities": [{"name": "UltraSSDAvailable", "value": "True"}]},
        ] if caps.ultra_ssd else []}],
        "capabilities": [{"name": key, "value": str(value) if isinstance(value, bool) else _number(value)}
                         for key, value in values.items()],
        "restrictions": [],
    }
