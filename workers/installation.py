"""The installation id: which azmc installation owns what a worker creates (activities/ownership.py).

AZMC_INSTALLATION_ID when set; otherwise the id of the Temporal namespace the worker serves, a UUID
the server generates when the namespace is created. Two clusters, or two namespaces, never share one;
a dev server keeps its namespace's id in its database file, so it survives restarts. (The
time-skipping test server answers the same name-derived id every time: tests pass explicit ids.)
Every worker of one installation must resolve the same id, or each would see the others' machines
as another owner's.
"""

from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
from temporalio.client import Client
from temporalio.service import RPCError

from workers.settings import Settings, SettingsError


async def installation_id(settings: Settings, client: Client) -> str:
    return settings.installation_id or await namespace_installation_id(client)


async def namespace_installation_id(client: Client) -> str:
    """The id of the namespace `client` is connected to; SettingsError (one line) when it cannot be read."""
    try:
        described = await client.workflow_service.describe_namespace(
            DescribeNamespaceRequest(namespace=client.namespace))
    except RPCError as error:
        raise SettingsError(
            f"cannot read the id of Temporal namespace {client.namespace!r} ({error.message}), which names this "
            "installation in its resources' owner tag; set AZMC_INSTALLATION_ID"
        ) from None
    namespace_id = described.namespace_info.id
    if not namespace_id:
        raise SettingsError(f"Temporal namespace {client.namespace!r} has no id; set AZMC_INSTALLATION_ID")
    return namespace_id
