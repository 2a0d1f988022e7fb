"""PoolStatus, the pool's `status` query: replica counts, revisions, one compact entry per machine; and its
PoolHeadline, the counts the pool keeps in its memo for the server to answer."""

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from models.status import Phase


class RolloutPhase(StrEnum):
    STABLE = "Stable"  # every counted machine runs the target revision, replicas as asked
    SCALING = "Scaling"  # machines are being added or removed (same revision)
    # As many machines as replicas, some not available: unhealthy, unknown or Failed, re-created or replaced
    REPAIRING = "Repairing"
    ROLLING = "Rolling"  # replacing machines of an older revision
    PAUSED = "Paused"  # a rollout waits for `resume` (healing goes on)
    STUCK = "Stuck"  # the new revision did not become Running within its creation timeout
    DELETING = "Deleting"
    DELETED = "Deleted"


class PoolMachine(BaseModel):
    """One machine as the pool tracks it. Short fields on purpose: hundreds of these ride in every status."""

    name: str
    revision: str
    phase: Phase = Phase.PENDING
    # When the machine entered `phase` (as the pool heard it): min_ready counts from Running's.
    since: datetime | None = None
    # Kept for diagnosis (Failed, powered off): not counted in replicas, deleted last or after preserve_timeout.
    preserved: bool = False
    # Why it waits Pending for quota, as its own status says (machine/fallback.py); "" when it does not.
    waiting_for_quota: str = ""
    # The pool sent `delete`; it no longer counts.
    deleting: bool = False
    # The zone it was started with first (the template's zones, rotated for a balanced spread); "" = regional.
    zone: str = ""
    # The pool started it to replace a Failed machine (counts against max_replacements until Running).
    replacement: bool = False
    # Running for the pool's min_ready: set when that timer fired (workflows/pool/clock.py); `available` means it.
    ready: bool = False
    # It was Running once: back in Pending or Creating it is being re-created (repaired), not a new machine.
    ran: bool = False


class PoolOperation(BaseModel):
    kind: str  # scale, create, delete, replace, roll, preserve, pause, resume, stuck, template
    description: str
    at: datetime


class PoolStatus(BaseModel):
    name: str
    resource_group: str
    phase: RolloutPhase = RolloutPhase.STABLE
    # Desired, and what the counted machines (neither preserved nor deleting) are.
    replicas: int = 0
    current: int = 0
    ready: int = 0  # Running
    updated: int = 0  # on the target revision
    available: int = 0  # Running for at least min_ready
    # While Repairing: the machines that do not serve as they did (unhealthy, unknown, Failed, being re-created).
    repairing: int = 0
    # The revision the pool last completed a rollout to, and the one it rolls to (the template's).
    current_revision: str = ""
    target_revision: str = ""
    paused: bool = False
    # Why the rollout does not progress (stuck, paused), "" when it does.
    rollout_message: str = ""
    # Why Failed machines wait for a replacement (the meltdown guard), "" when none waits.
    replacements_held: str = ""
    # Why repairs of Unhealthy machines wait (max_unhealthy, max_replacements), "" when none waits.
    repairs_held: str = ""
    # How many counted machines wait Pending for quota, and why in a line: "2 of 5 wait for quota:
    # standardDSv5Family 6 of 6 vCPUs in use (Standard_D2s_v5 needs 2)"; 0 and "" when none does.
    quota_waiting: int = 0
    quota_held: str = ""
    machines: list[PoolMachine] = []
    # The last operations of the pool, oldest first.
    recent_operations: list[PoolOperation] = []
    # A sentence: "rolling 3/5 to rev b7c1e, 1 surge machine creating".
    summary: str = ""
    runs: int = 1
    # The pool's other settings as its spec writes them (strategy, max_replacements, preserve_failed,
    # preserve_timeout, min_ready): what `azmc apply` compares a file with.
    settings: dict[str, Any] = {}
    # The last notices the pool did not act on, and why (a notice its machine's own workflow contradicts).
    ignored_notices: list[PoolOperation] = []
    # Once deleted: whether Azure was read by the pool's `azmc-pool` tag before it said none of its machines
    # is left, and what tagged so remains that was not the pool's to delete (one line each).
    azure_checked: bool = False
    left_in_azure: list[str] = []


# The memo key under which a pool keeps its PoolHeadline.
POOL_MEMO = "azmc-pool"


class PoolHeadline(BaseModel):
    """What `azmc pool get` shows of a pool, kept by the pool in its memo whenever it changes
    (workflows/pool/view.py): the server answers it from the workflow's own record (a listing, a describe), where
    the `status` query waits for the pool's pending workflow task, and a pool told of a hundred machines' phases
    at once has one pending all the time."""

    phase: RolloutPhase = RolloutPhase.STABLE
    replicas: int = 0
    current: int = 0
    ready: int = 0
    updated: int = 0
    available: int = 0
    repairing: int = 0
    current_revision: str = ""
    target_revision: str = ""
    machines: int = 0  # every machine the pool holds, those it deletes included: what a deletion has left

    @classmethod
    def of(cls, status: PoolStatus) -> "PoolHeadline":
        return cls.model_validate({**status.model_dump(include=set(cls.model_fields)),
                                   "machines": len(status.machines)})
