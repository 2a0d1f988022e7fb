"""The one serializable state a pool's workflow carries, across continue-as-new too.

Compact on purpose: one short PoolMachine per machine (no per-machine spec; a machine's workflow holds its
own), so hundreds of machines ride in one continue-as-new input far below Temporal's payload limit.
"""

from datetime import datetime
from typing import Any

from pydantic import BaseModel
from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.pool import PoolMachine, PoolOperation, PoolSpec, PoolTemplate
    from models.requests import DeleteRequest
    from models.status import Phase

from workflows.carried import CarriedShape

RECENT_POOL_OPERATIONS = 20
IGNORED_NOTICES_KEPT = 10
# Machines that ended without deleting themselves, kept for the pool's deletion to read by name; the oldest
# beyond this are left to the graph alone (long indexed by then).
ENDED_MACHINES_KEPT = 200


class Heard(BaseModel):
    """What a notice said of a machine, until the machine's workflow is asked (news.py)."""

    phase: Phase
    preserved: bool = False
    waiting_for_quota: str = ""


class InPlace(BaseModel):
    """A template change every machine takes in place (models/pool_in_place.py), not applied to all of them yet:
    machines of `from_revision` get update_spec and move to `to_revision`; those that refuse are rolled."""

    from_revision: str
    to_revision: str
    fields: list[str]


class PoolState(BaseModel):
    # Marks a continue-as-new input, so it is never mistaken for (or validated as) a fresh PoolSpec.
    kind: str = "azmc.machine-pool.state/v2"
    spec: PoolSpec  # replicas and the template as last set
    # The target revision: the template's, named once from the template as it was sent (template_revision).
    revision: str
    machines: list[PoolMachine] = []
    # Names come from (life, revision, counter): the counter only grows, so a name is never reused by the pool.
    counter: int = 0
    # This life of the pool: the id of the first run of its workflow since it was (re)started (continue-as-new keeps
    # it), so a pool applied again after it was deleted or terminated never names a machine as an earlier life did.
    # "" in a state carried from before lives: names as they were.
    life: str = ""
    # A new life looks for the machines an earlier life started before it creates any (adoption.py).
    adoption_due: bool = False
    # Machines the pool does not know that notices named, to check whether they are its own (adoption.py).
    strangers: list[str] = []
    # The revision the pool last completed a rollout to ("" before the first one completed).
    current_revision: str = ""
    # Its template: a set_template equal to it is a rollback to that revision (same machine names, no rollout).
    current_template: PoolTemplate | None = None
    paused: bool = False
    # The last time the rollout moved (it started, or a machine of the target revision became Running):
    # no move for the template's creation timeout means the rollout is stuck.
    progress_at: datetime | None = None
    stuck: bool = False
    delete_request: DeleteRequest | None = None
    operations: list[PoolOperation] = []
    runs: int = 1
    history_limit: int = 0
    # Machines to ask, each with the distinct notices that named it since (none: the pool asks on its own);
    # carried, so continue-as-new loses none.
    heard: dict[str, list[Heard]] = {}
    # Notices the pool did not act on (news.py), the last IGNORED_NOTICES_KEPT.
    ignored: list[PoolOperation] = []
    # Its machines whose workflow ended without saying Deleted (terminated, ...): what they left in Azure
    # goes when the pool is deleted (leftovers.py).
    ended: list[str] = []
    azure_checked: bool = False
    # Repairs its Unhealthy machines asked for (name -> action) and have not been allowed yet; those allowed that
    # take the machine away (redeploy, recreate) until it is Running again; `resume_repairs` overriding max_unhealthy.
    repairs_wanted: dict[str, str] = {}
    repairs_in_flight: list[str] = []
    repairs_forced: bool = False
    # Spot machines whose eviction Azure announced (`preempt_announced`): replaced at once, deleted once replaced.
    preempted: list[str] = []
    # Machines that must redeploy ahead of Azure's maintenance in a pool asking for zero unavailable
    # (strategy.max_unavailable 0): a surge machine replaces each first, then it goes (repairs.py).
    surged_ahead: list[str] = []
    left_in_azure: list[str] = []
    in_place: InPlace | None = None
    # Failed machines that never ran, replaced one after the other since a machine last became Running, and when the
    # last of them was: the next replacement waits a backoff from then (clock.py), so a pool that cannot create
    # (its resource group is gone, Azure refuses its template) does not churn machines.
    unran_failures: int = 0
    unran_failed_at: datetime | None = None

    def machine(self, name: str) -> PoolMachine | None:
        return next((m for m in self.machines if m.name == name), None)


def _ready_from_phase(v1: dict[str, Any]) -> dict[str, Any]:
    """Version 1 (azmc 0.2) to 2: a machine's `ready` (Running for min_ready) was not kept; a Running one is
    taken as ready, as it most likely is, rather than unavailable: a rollout would delete old machines it
    believes unavailable."""
    machines = [{**machine, "ready": machine.get("phase") == Phase.RUNNING and not machine.get("preserved")}
                for machine in v1.get("machines", [])]
    return {**v1, "machines": machines}


POOL_STATE = CarriedShape("azmc.machine-pool.state", PoolState, upgrades=(_ready_from_phase,))
