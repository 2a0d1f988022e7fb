"""Resource Graph's `SpotResources` table: per size and region the Spot eviction-rate bucket, rows of type
`microsoft.compute/skuspotevictionrate/location` with `sku.name` (lower-case size), `location` and
`properties.evictionRate` ("0-5", "5-10", "10-15", "15-20", "20+" percent), as Microsoft's sample query reads them
("Use Azure Spot Virtual Machines", Resource Graph section). The rows are the tenant's, not a subscription's.
`POST /_emulator/spot-eviction-rates` sets one bucket; the default is "0-5", and "5-10" for the D-series v3.
"""

from __future__ import annotations

from typing import Any

from emulator.pricing.retail_prices import _BASE, LOCATIONS

SPOT_TABLE = "spotresources"
EVICTION_TYPE = "microsoft.compute/skuspotevictionrate/location"
BUCKETS = ("0-5", "5-10", "10-15", "15-20", "20+")


def default_bucket(vm_size: str) -> str:
    return "5-10" if vm_size.endswith("_v3") else "0-5"


def row(vm_size: str, location: str, bucket: str) -> dict[str, Any]:
    sku = vm_size.lower()
    return {"id": f"/providers/Microsoft.Compute/skuSpotEvictionRate/{sku}/location/{location}", "name": sku,
            "type": EVICTION_TYPE, "tenantId": "", "kind": "", "location": location, "resourceGroup": "",
            "subscriptionId": "", "managedBy": "", "sku": {"name": sku}, "plan": None, "tags": {}, "identity": None,
            "zones": None, "extendedLocation": None, "properties": {"evictionRate": bucket}}


def seed_rows(overrides: dict[tuple[str, str], str]) -> list[tuple[str, dict[str, Any]]]:
    """(key, row) for every known size and region."""
    return [(f"{EVICTION_TYPE}/{size.lower()}/{location}", row(size, location, overrides.get(
        (size.lower(), location), default_bucket(size)))) for size in _BASE for location in LOCATIONS]
