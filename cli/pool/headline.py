"""A pool's status as the server answers it, without the pool's workflow task.

A query is answered by the pool's workflow, after the workflow task the pool has pending (the server holds the
query until it is done, one query per workflow: another is refused and retried). A pool whose hundred machines tell
it their phases at once has one pending all the time, each waiting its turn on a busy worker: its `status` took
seconds, more with a second client asking (docs/performance.md, status_latency). So
`azmc pool get` reads the PoolHeadline each pool keeps in its memo from the one visibility listing of pools, and
`azmc pool delete --wait` follows the headline's count of machines with describes, and `azmc pool describe` asks the
pool itself for QUERY_WAIT, then answers from the server: the headline (a describe) and the pool's machines as they
say themselves (a visibility listing of their own phases).
"""

from typing import Any

from temporalio.client import Client, WorkflowExecution

from cli.machines import QUERY_WAIT, answered_soon, visibility_query
from cli.pool_workflow import status
from models.naming import machine_of
from models.pool import PoolMachine, PoolStatus
from models.pool_status import POOL_MEMO, PoolHeadline
from models.search_attributes import AZMC_PHASE
from models.status import Phase


async def headline_of(execution: WorkflowExecution) -> PoolHeadline | None:
    """The headline in a listed or described pool's memo; None for a pool whose code keeps none (older azmc)."""
    kept: Any = await execution.memo_value(POOL_MEMO, None)
    return PoolHeadline.model_validate(kept) if isinstance(kept, dict) else None


def _phase(shown: str | None) -> Phase:
    try:
        return Phase(shown or Phase.PENDING)  # a machine starts with AzmcPhase Pending
    except ValueError:
        return Phase.UNKNOWN


async def _machines_as_they_say(client: Client, resource_group: str, pool: str) -> list[PoolMachine]:
    machines = []
    async for wf in client.list_workflows(visibility_query(open_only=True, resource_group=resource_group, pool=pool)):
        machines.append(PoolMachine(name=(machine_of(wf.id) or ("", wf.id))[1], revision="-",
                                    phase=_phase(wf.typed_search_attributes.get(AZMC_PHASE))))
    return sorted(machines, key=lambda m: m.name)


async def described(client: Client, wf_id: str, resource_group: str, name: str) -> tuple[PoolStatus, str]:
    """The pool's own status; when it does not answer within QUERY_WAIT, what the server holds, and a note saying so."""
    answer = await answered_soon(status(client, wf_id))
    if answer is not None:
        return answer, ""
    headline = await headline_of(await client.get_workflow_handle(wf_id).describe())
    if headline is None:  # nothing kept: wait for the pool's own answer, however long it takes
        return await status(client, wf_id), ""
    shown = PoolStatus(name=name, resource_group=resource_group, **headline.model_dump(exclude={"machines"}),
                       machines=await _machines_as_they_say(client, resource_group, name))
    return shown, (f"the pool did not answer within {QUERY_WAIT.total_seconds():g} s (its workflow tasks wait their "
                   "turn on a busy worker): its counts as it last kept them, its machines' phases as they say")
