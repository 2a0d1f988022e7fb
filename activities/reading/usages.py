"""read_usages: the vCPU quotas of a location as Azure counts them (the compute usages list: one ARM read).

Azure lists other usages too (availability sets, VM counts, scale sets); only the vCPU quotas are kept:
`cores`, `lowPriorityCores` and the `...Family` ones, which is what foreseeing a VM's quota needs
(models/quota.py) and keeps the memory's state small.
"""

from activities.arm import classified
from activities.clients import AzureClients
from activities.errors import error
from models.activity_io import UsagesQuestion
from models.errors import ErrorType
from models.quota import QuotaUsage
from models.vm_size_quota import LOW_PRIORITY, TOTAL_REGIONAL

_NOT_FAMILIES = {TOTAL_REGIONAL.lower(), LOW_PRIORITY.lower()}


def _vcpu_quota(name: str) -> bool:
    return name.lower() in _NOT_FAMILIES or name.lower().endswith("family")


async def read_usages(clients: AzureClients, question: UsagesQuestion) -> list[QuotaUsage]:
    if question.subscription.lower() != clients.subscription_id.lower():
        # The clients act for one subscription: another's usages would be this one's, mislabelled.
        raise error(ErrorType.INVALID_SPEC, f"this worker reads the usages of subscription {clients.subscription_id}, "
                                            f"not {question.subscription}")
    async with classified(f"read the compute usages of {question.location}"):
        return [QuotaUsage(name=usage.name.value, current=usage.current_value, limit=usage.limit)
                async for usage in clients.compute.usage.list(question.location)
                if usage.name is not None and usage.name.value and _vcpu_quota(usage.name.value)]
