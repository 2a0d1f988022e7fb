"""read_skus: which VM sizes of a location support accelerated networking, as the resource SKUs API says
(`resource_skus.list` with `$filter=location eq '<location>'`: one ARM read, all pages). Asked by the shared
offerings memory at most once a day per location (models/size_features.py), never per machine."""

from activities.arm import classified
from activities.clients import AzureClients
from models.activity_io import UsagesQuestion

_CAPABILITY = "acceleratednetworkingenabled"


async def read_accelerated_networking(clients: AzureClients, question: UsagesQuestion) -> dict[str, bool]:
    """size (lower case) -> AcceleratedNetworkingEnabled, for the location's virtual machine sizes."""
    found: dict[str, bool] = {}
    async with classified(f"read the resource SKUs of {question.location}"):
        async for sku in clients.compute.resource_skus.list(filter=f"location eq '{question.location}'"):
            if (sku.resource_type or "").lower() != "virtualmachines" or not sku.name:
                continue
            values = {(c.name or "").lower(): (c.value or "") for c in sku.capabilities or []}
            found[sku.name.lower()] = values.get(_CAPABILITY, "").lower() == "true"
    return found
