"""ARM's own list of a machine's resources in its resource group: ONE request, for every type at once.

`resources.list_by_resource_group` with `$filter=substringof('<machine>', name)`: the VM is named
<machine> and every other name azmc gives a machine's resources starts with "<machine>-"
(models/naming.py), whichever spec named them; what else the substring matches (vm10's resources for
vm1) is dropped here, at the price of listing it (short, zero-padded machine names avoid that). ARM
answers from its own state (a resource is listed from its PUT until its delete), so "nothing left"
read here is Azure's word, unlike the lagging Resource Graph; and with tags, so the caller applies the
ownership rules (activities/ownership.py) to each resource as it would to a GET.
"""

from dataclasses import dataclass, field

from activities.arm import classified
from activities.clients import AzureClients


@dataclass(frozen=True)
class Listed:
    id: str
    name: str
    type: str  # lower-case, e.g. microsoft.compute/disks
    tags: dict[str, str] = field(default_factory=dict)


def name_filter(prefix: str) -> str:
    return f"substringof('{prefix.replace(chr(39), chr(39) * 2)}', name)"  # OData doubles a quote


async def machine_resources(clients: AzureClients, resource_group: str, machine: str) -> list[Listed]:
    """The VM <machine> and every resource named "<machine>-..." in `resource_group` (all pages), with tags."""
    async with classified(f"list the resources of {machine}"):
        pages = clients.resources.resources.list_by_resource_group(resource_group, filter=name_filter(machine))
        found = [Listed(str(r.id), str(r.name), str(r.type).lower(), dict(r.tags or {})) async for r in pages]
    # substringof matches anywhere in the name: keep the machine's own names only.
    own, prefix = machine.lower(), f"{machine}-".lower()
    return [res for res in found if res.name.lower() == own or res.name.lower().startswith(prefix)]
