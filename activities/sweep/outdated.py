"""list_outdated: the open runs a deploy left on an older Worker Deployment Version, for the sweep to wake.

One visibility listing, stopped at the limit: the server indexes each pinned run's version
(TemporalWorkerDeploymentVersion), so the question costs a page, whatever the fleet's size. A run begun
before Worker Versioning has none: woken, it moves to the current version at once (docs/upgrades.md).
"""

from temporalio.client import Client

from models.sweep import Outdated, OutdatedQuery
from models.temporal_api import UPGRADABLE_TYPES


def outdated_query(query: OutdatedQuery) -> str:
    """The version as the server indexes it, `<deployment>:<build id>` (server 1.32)."""
    version = f"{query.deployment_name}:{query.build_id}"
    if '"' in version or "'" in version or "\\" in version:
        raise ValueError(f"not a deployment version: {version!r}")
    types = ", ".join(f'"{kind}"' for kind in UPGRADABLE_TYPES)
    return (f'ExecutionStatus = "Running" AND WorkflowType IN ({types}) '
            f'AND (TemporalWorkerDeploymentVersion != "{version}" OR TemporalWorkerDeploymentVersion IS NULL)')


async def list_outdated(client: Client, query: OutdatedQuery) -> Outdated:
    if query.limit == 0:
        return Outdated()
    ids: list[str] = []
    async for execution in client.list_workflows(outdated_query(query), limit=query.limit + 1):
        ids.append(execution.id)
    return Outdated(workflow_ids=ids[:query.limit], more=len(ids) > query.limit)
