"""ARM's own list of a machine's resources in its resource group: ONE request, for every type at once.

`resources.list_by_resource_group` with `$filter=substringof('<machine>', name)`: the VM is named
<machine> and every other name azmc gives a machine's resources starts with "<machine>-"
(models/naming.py), whichever spec named them; what else the substring matches (vm10's resources for
vm1) is dropped here, at the price of listing it (short, zero-padded machine names avoid that). ARM
answers from its own state (a resource is listed from its PUT until its delete), so "nothing left"
read here is Azure's word, unlike the lagging Resource Graph; and with tags, so the caller applies the
ownership rules (activities/ownership.py) to each resource as it would to a GET. Machines of one group that
ask together share one list of the whole group (group_listing.py); a local activity that would wait for that list
fails at once with WouldWaitForCompany, and its workflow asks again as a regular activity
(workflows/azure_calls.py).
"""

from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from activities.arm import classified
from activities.clients import AzureClients
from activities.reading.group_listing import Listed, WouldWaitForCompany
from models.errors import ErrorType

__all__ = ["Listed", "machine_resources"]


async def machine_resources(clients: AzureClients, resource_group: str, machine: str) -> list[Listed]:
    """The VM <machine> and every resource named "<machine>-..." in `resource_group` (all pages), with tags."""
    # A local activity holds its workflow task while it waits: it asks again as a regular activity instead.
    local = activity.in_activity() and activity.info().is_local
    try:
        async with classified(f"list the resources of {machine}"):
            return await clients.listings.resources_of(resource_group, machine, may_wait=not local)
    except WouldWaitForCompany as exc:
        raise ApplicationError(str(exc), type=ErrorType.WOULD_WAIT_FOR_COMPANY, non_retryable=True,
                               category=ApplicationErrorCategory.BENIGN) from exc  # an answer: no warning logged
