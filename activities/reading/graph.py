"""Resource Graph queries by ownership tag. The graph lags ARM: callers confirm skip decisions by GET."""

from typing import Any

from azure.mgmt.resourcegraph.models import QueryRequest, QueryRequestOptions

from activities.arm import classified
from activities.clients import AzureClients
from activities.reading.foresight import FORESIGHT_COLUMNS, FORESIGHT_JOIN
from models.naming import MACHINE_TAG, POOL_TAG

NIC_TYPE = "microsoft.network/networkinterfaces"
DISK_TYPE = "microsoft.compute/disks"
PUBLIC_IP_TYPE = "microsoft.network/publicipaddresses"  # spec `public_ip` (activities/public_ip.py)
VM_TYPE = "microsoft.compute/virtualmachines"
MACHINE_TYPES = (VM_TYPE, NIC_TYPE, DISK_TYPE)
HEALTH_TYPE = "microsoft.resourcehealth/availabilitystatuses"  # a VM's row in HealthResources
PAGE_SIZE = 1000  # Resource Graph's maximum $top


def kql_string(value: str) -> str:
    """A KQL single-quoted string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _types_clause() -> str:
    return "type in~ (" + ", ".join(kql_string(t) for t in MACHINE_TYPES) + ")"


def machine_query(resource_group: str, machine: str) -> str:
    """Exactly one machine's resources: `==` on the tag value, so vm1 never matches vm10's resources."""
    return (
        "Resources"
        f" | where resourceGroup =~ {kql_string(resource_group)}"
        f" and tags[{kql_string(MACHINE_TAG)}] == {kql_string(machine)}"
        f" and {_types_clause()}"
        " | project id, name, type, resourceGroup, tags, properties"
    )


def fleet_query(resource_group: str = "", pool: str = "") -> str:
    """Every azmc-owned VM/NIC/disk, optionally narrowed to a resource group and/or a pool."""
    where = [f"isnotempty(tags[{kql_string(MACHINE_TAG)}])", _types_clause()]
    if resource_group:
        where.insert(0, f"resourceGroup =~ {kql_string(resource_group)}")
    if pool:
        where.append(f"tags[{kql_string(POOL_TAG)}] == {kql_string(pool)}")
    return (
        "Resources"
        f" | where {' and '.join(where)}"
        " | project id, name, type, resourceGroup, tags, properties"
        " | order by id asc"
    )


def sweep_query() -> str:
    """The fleet sweep's one query: every azmc-tagged VM (its row names its NICs and disks), only the
    NICs and disks that no VM holds, and every public IP (few: spec `public_ip` only; one on an orphaned NIC
    goes in the same collection, after the NIC). Each VM row carries its Resource Health (`availability`,
    `health_context`, `health_summary`; null when the graph has none yet): a left outer join on the lower-cased
    VM id adds columns, not rows, so a healthy fleet is still one row per machine: 1,000 machines a page. Then each
    VM's scheduled events and Resource Health annotations (`notice_type`, `notice`, activities/reading/foresight.py):
    a row more per notice, none for a VM without."""
    return (
        "Resources"
        f" | where isnotempty(tags[{kql_string(MACHINE_TAG)}])"
        f" and (type =~ {kql_string(VM_TYPE)}"
        f" or (type =~ {kql_string(NIC_TYPE)} and isempty(properties.virtualMachine.id))"
        f" or (type =~ {kql_string(DISK_TYPE)} and isempty(managedBy))"
        f" or type =~ {kql_string(PUBLIC_IP_TYPE)})"
        " | extend vmid = tolower(id)"
        " | join kind=leftouter (HealthResources"
        f" | where type =~ {kql_string(HEALTH_TYPE)}"
        " | extend vmid = tolower(tostring(properties.targetResourceId))"
        " | project vmid, availability = tostring(properties.availabilityState),"
        " health_context = tostring(properties.context), health_summary = tostring(properties.summary)) on vmid"
        f"{FORESIGHT_JOIN}"
        " | project id, name, type, resourceGroup, tags, properties, availability, health_context, health_summary,"
        f" {FORESIGHT_COLUMNS}"
        " | order by id asc"
    )


async def query_all(clients: AzureClients, query: str, action: str) -> list[dict[str, Any]]:
    """Run a query in this subscription, following `$skipToken` pages to the end."""
    rows, _ = await query_pages(clients, query, action)
    return rows


async def query_pages(clients: AzureClients, query: str, action: str) -> tuple[list[dict[str, Any]], int]:
    """query_all, and how many pages (requests) it took."""
    rows: list[dict[str, Any]] = []
    pages = 0
    skip_token: str | None = None
    while True:
        request = QueryRequest(
            query=query,
            subscriptions=[clients.subscription_id],
            options=QueryRequestOptions(top=PAGE_SIZE, skip_token=skip_token, result_format="objectArray"),
        )
        async with classified(action):
            response = await clients.graph.resources(request)
        pages += 1
        rows.extend(response.data or [])  # type: ignore[arg-type]  # objectArray, as the request asks: a list of rows
        skip_token = response.skip_token
        if not skip_token:
            return rows, pages
