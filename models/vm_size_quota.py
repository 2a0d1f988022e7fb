"""What quota an offering counts against, from the size's name alone: its vCPUs and its quota family.

Azure names sizes Standard_<series><vCPUs>[-<constrained>]<features>[_<version>] and their quota families
standard<SERIES><FEATURES><version>Family (Standard_D4as_v5: 4 vCPUs, standardDASv5Family). Read from the
name rather than from Azure's resourceSkus (one more call per location, and a large answer) or a table
(which must be kept): a size whose name does not say (Standard_A0) is not foreseen, and a family Azure names
otherwise is not found in the usages; either way Azure's own refusal is still remembered. A constrained size
(Standard_E4-2s_v5) counts its full vCPUs, as quota does. Pure: safe in the workflow sandbox.
"""

import re

from models.spec import Priority

TOTAL_REGIONAL = "cores"  # every regular vCPU in the region
LOW_PRIORITY = "lowPriorityCores"  # Spot vCPUs in the region

_SIZE = re.compile(r"^standard_(?P<series>[a-z]+)(?P<vcpus>\d+)(?:-\d+)?(?P<features>[a-z]*)(?:_(?P<version>v\d+))?$",
                   re.IGNORECASE)


def vcpus(vm_size: str) -> int | None:
    """The vCPUs the size's name says; None when it says none."""
    found = _SIZE.match(vm_size)
    return int(found["vcpus"]) if found else None


def family(vm_size: str) -> str | None:
    """Azure's quota family of the size (Standard_D4s_v5 -> standardDSv5Family); None when the name is not Azure's
    usual shape."""
    found = _SIZE.match(vm_size)
    if found is None:
        return None
    return f"standard{found['series'].upper()}{found['features'].upper()}{found['version'] or ''}Family"


def quotas_of(vm_size: str, priority: Priority) -> list[str]:
    """The quotas a VM of this size counts against: Spot only the low-priority vCPUs, a regular VM its family
    and the regional total."""
    if priority == Priority.SPOT:
        return [LOW_PRIORITY]
    size_family = family(vm_size)
    return [size_family, TOTAL_REGIONAL] if size_family else [TOTAL_REGIONAL]
