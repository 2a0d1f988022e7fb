"""ARM's list answers read as JSON, not as SDK models, for the lists that serve many machines at once.

The group's resource list and the subscription's VM statuses carry thousands of items in a fleet, read every few
seconds: turned into azure-mgmt models they cost a tenth of the worker's CPU in bench.fleet_churn (1,000 machines),
for the four fields azmc reads of each. The requests are the SDK's own (its request builders: URL, api-version,
the client's pipeline with its retries, ARM pace and counts) and so are the errors (a 404 is the SDK's
ResourceNotFoundError, with ARM's code and message); only the items stay dicts. Pages follow `nextLink`.
"""

from collections.abc import AsyncIterator
from typing import Any

from azure.core.exceptions import (
    ClientAuthenticationError,
    HttpResponseError,
    ResourceExistsError,
    ResourceNotFoundError,
    map_error,
)
from azure.core.rest import HttpRequest
from azure.mgmt.compute.operations._operations import (
    build_virtual_machines_list_all_request,
    build_virtual_machines_list_request,
)
from azure.mgmt.core.exceptions import ARMErrorFormat
from azure.mgmt.resource.resources.operations._operations import build_resources_list_by_resource_group_request

_ERRORS = {401: ClientAuthenticationError, 404: ResourceNotFoundError, 409: ResourceExistsError}


async def items(client: Any, first: HttpRequest) -> AsyncIterator[dict[str, Any]]:
    """Every item of every page of the list `first` asks for, through `client`'s pipeline."""
    request: HttpRequest | None = first
    while request is not None:
        response = await client.send_request(request)
        if response.status_code != 200:
            map_error(status_code=response.status_code, response=response, error_map=_ERRORS)
            raise HttpResponseError(response=response, error_format=ARMErrorFormat)
        body = response.json()
        for item in body.get("value") or []:
            yield item
        link = body.get("nextLink")
        request = HttpRequest("GET", link) if link else None


def group_resources(client: Any, subscription_id: str, resource_group: str,
                    name_filter: str | None) -> AsyncIterator[dict[str, Any]]:
    """Resources_ListByResourceGroup (azure-mgmt-resource's `resources.list_by_resource_group`)."""
    return items(client, build_resources_list_by_resource_group_request(
        resource_group, subscription_id, filter=name_filter, api_version=client._config.api_version))


def group_vms(client: Any, subscription_id: str, resource_group: str) -> AsyncIterator[dict[str, Any]]:
    """VirtualMachines_List (azure-mgmt-compute's `virtual_machines.list`): the group's VMs, their models."""
    return items(client, build_virtual_machines_list_request(resource_group, subscription_id))


def vm_statuses(client: Any, subscription_id: str) -> AsyncIterator[dict[str, Any]]:
    """VirtualMachines_ListAll with statusOnly=true (azure-mgmt-compute's `virtual_machines.list_all`)."""
    return items(client, build_virtual_machines_list_all_request(subscription_id, status_only="true"))
