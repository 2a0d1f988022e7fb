"""What a pool asks about its machines, and the answers: the activities a pool calls (activities/pool/machines.py,
activities/pool/leftovers.py).

A pool believes what a machine's own workflow says (describe and query, strongly consistent) and what Azure
holds under its `azmc-pool` tag, never a notice alone: anyone who can signal the pool can send a notice.
"""

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from models.status import Phase
from models.sweep import OrphanMachine


class _Io(BaseModel):
    model_config = ConfigDict(frozen=True)


class ChildState(StrEnum):
    OPEN = "open"  # the pool's machine's workflow runs, in `phase` (`preserved` only when its status was queried)
    DELETED = "deleted"  # it completed: a machine's workflow completes once its machine is deleted
    ENDED = "ended"  # it ended otherwise (terminated, failed, timed out): what it made may be left in Azure
    ABSENT = "absent"  # Temporal knows no workflow of that id (never started, or removed by retention)
    FOREIGN = "foreign"  # a workflow of that id runs, but another workflow (or nobody) started it


class MachinesOfPool(_Io):
    """Machines (names) a pool asks about, in its resource group."""

    pool_workflow_id: str
    resource_group: str
    names: list[str]
    # Ask each running one its `status` (phase and preserved) instead of reading its AzmcPhase: needs a worker.
    query_status: bool = False


class MachineTruth(_Io):
    name: str
    state: ChildState
    phase: Phase | None = None  # None: its AzmcPhase is not a phase
    preserved: bool | None = None  # None: not asked (only its status query says)
    waiting_for_quota: str | None = None  # why it waits for quota ("" none); None: not asked (its status says)
    detail: str = ""


class MachineInZone(_Io):
    name: str
    zone: str = ""  # the zone it was started with first (models/pool_status.py PoolMachine.zone)


class InPlaceInput(_Io):
    """A template change every machine takes in place (models/pool_in_place.py): sent to each with update_spec."""

    pool: str
    resource_group: str
    template: dict[str, Any]  # the new template, as JSON; each machine's spec is built from it (its name, zones)
    machines: list[MachineInZone]


class InPlaceOutcome(_Io):
    name: str
    applied: bool
    detail: str = ""  # why not (refused by the machine, gone), or what changed ("tagged VM web-x, NIC ...")


class AdoptionInput(_Io):
    """Open machine workflows a pool may adopt: its own (started by its workflow id, on its task queue) that it
    does not know. `names` empty: every open machine of the pool (a visibility listing); else only these."""

    pool_workflow_id: str
    task_queue: str
    resource_group: str
    pool: str
    template: dict[str, Any]  # the pool's template as JSON: each machine is compared with it, sent it in place
    known: list[str] = []
    names: list[str] = []


class AdoptedMachine(_Io):
    name: str
    phase: Phase
    current: bool  # it runs the pool's template (sent in place when it differed only in what it takes so)
    revision: str = ""  # when not current: a revision of its own (models/pool_adoption.py), rolled by the pool
    zone: str = ""
    preserved: bool = False
    since: datetime | None = None  # when it was preserved (its preserve_timeout counts from then)
    waiting_for_quota: str = ""
    detail: str = ""  # why it is not current, or what changed in place


class Adoption(_Io):
    adopted: list[AdoptedMachine] = []
    # Open machine workflows under the pool's name that are not its own, one line each (the first few).
    refused: list[str] = []
    listed: int = 0  # open machine workflows the listing showed under the pool's name


class PoolLeftoversInput(_Io):
    pool_workflow_id: str
    resource_group: str
    pool: str
    # Machines whose workflow ended without saying Deleted: read by name too, as the graph may not show them yet.
    ended: list[OrphanMachine] = []


class PoolLeftovers(_Io):
    """What Azure holds under the pool's tag, confirmed by direct reads, sorted by what the pool does with it."""

    # The pool's own machines whose workflows run but that it does not know (it lost them): sent `delete`.
    open_machines: list[str] = []
    # What the pool's own closed machines left, each resource read just now: deleted by the pool, no grace.
    closed_machines: list[OrphanMachine] = []
    # Tagged with the pool but not its to delete (another workflow's machine, tagged by older azmc):
    # one line each, said when the pool is deleted.
    others: list[str] = []
    graph_rows: int = 0
    arm_requests: int = 0


def resources_of(found: OrphanMachine) -> str:
    """"web-x1y2z (VM web-x1y2z, NIC web-x1y2z-nic, disk web-x1y2z-os-disk)"."""
    names = ([f"VM {found.vm}"] if found.vm else []) + [f"NIC {n}" for n in found.nics] + \
        [f"disk {d}" for d in found.disks] + [f"public IP {p}" for p in found.public_ips]
    return f"{found.name} ({', '.join(names)})"
