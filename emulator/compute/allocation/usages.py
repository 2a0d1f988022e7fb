"""The compute usages API (`GET .../providers/Microsoft.Compute/locations/{location}/usages`): vCPU quotas as
Azure lists them (`az vm list-usage`): `cores` (Total Regional vCPUs), each family, `lowPriorityCores`.

Current values are what quota.py counts when it refuses a VM (`in_use`); a limit is the tightest quota
entry of that name in the location. Without an entry the emulator enforces no quota, and lists the quota
with DEFAULT_LIMIT: Azure's own defaults depend on the subscription's offer (tens to hundreds of vCPUs per
family); this one is far above what any test or bench allocates, so a client that respects the listed
limits is never stopped where the emulator would not refuse.
"""

from __future__ import annotations

import re
from typing import Any

from emulator.compute.allocation import vm_sizes
from emulator.compute.allocation.capacity import AllocationRequest, same_location
from emulator.compute.allocation.quota import QuotaRegistry, in_use

DEFAULT_LIMIT = 100_000
_FAMILY = re.compile(r"^standard(?P<series>.+)Family$", re.IGNORECASE)
# How Azure names the quotas that are not a family.
_SHOWN = {vm_sizes.TOTAL_REGIONAL: "Total Regional vCPUs", vm_sizes.LOW_PRIORITY: "Total Regional Low-priority vCPUs"}


def _localized(name: str) -> str:
    known = _SHOWN.get(name)
    if known is not None:
        return known
    family = _FAMILY.match(name)
    return f"Standard {family['series']} Family vCPUs" if family else f"{name} vCPUs"


def usages(quotas: QuotaRegistry, subscription: str, location: str,
           allocated: list[AllocationRequest]) -> list[dict[str, Any]]:
    """`cores`, every family in use or limited in the location (by name), then `lowPriorityCores`."""
    families: dict[str, str] = {}  # lower case -> as first named
    for allocation in allocated:
        if same_location(allocation.location, location) and not allocation.spot:
            name = vm_sizes.family(allocation.vm_size)
            families.setdefault(name.lower(), name)
    limits: dict[str, int] = {}
    for entry in quotas.in_location(location):
        name = str(entry.family)
        families.setdefault(name.lower(), name)
        limits[name.lower()] = min(limits.get(name.lower(), entry.limit_cores), entry.limit_cores)
    for special in (vm_sizes.TOTAL_REGIONAL, vm_sizes.LOW_PRIORITY):
        families.pop(special.lower(), None)
    names = [vm_sizes.TOTAL_REGIONAL, *sorted(families.values(), key=str.lower), vm_sizes.LOW_PRIORITY]
    return [{"unit": "Count",
             "currentValue": in_use(name.lower(), subscription, location, allocated),
             "limit": limits.get(name.lower(), DEFAULT_LIMIT),
             "name": {"value": name, "localizedValue": _localized(name)}}
            for name in names]
