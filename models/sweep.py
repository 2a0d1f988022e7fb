"""The fleet sweep's contract: its settings, what one survey finds, and the report a sweep returns.

One FleetSweep run (every minute, from the Temporal Schedule `azmc-fleet-sweep`) reads the whole fleet
with one paged Resource Graph query and one paged visibility listing, signals `reconcile` to machines
that drifted and collects orphans: resources this installation tagged whose machine has no open workflow.
"""

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from models.durations import Bounded, Duration

SWEEP_WORKFLOW = "FleetSweep"
SCHEDULE_ID = "azmc-fleet-sweep"
DEFAULT_SWEEP_INTERVAL = timedelta(minutes=1)
# Must exceed Resource Graph's lag (seconds usually, minutes at times) and the time a machine takes
# between its workflow's start and its first visibility record.
DEFAULT_ORPHAN_GRACE = timedelta(minutes=30)
DEFAULT_MAX_ORPHAN_DELETIONS = 20


class SkipReason(StrEnum):
    """Why the sweep left an orphan candidate alone (each is counted in the report)."""

    WORKFLOW_OPEN = "workflow-open"  # the re-check found the machine's workflow running
    YOUNGER_THAN_GRACE = "younger-than-grace"
    AGE_UNKNOWN = "age-unknown"  # neither a creation time nor a closed workflow to measure from
    GONE = "gone"  # the direct GET found nothing: the graph lagged
    NOT_OURS = "not-ours"  # the direct GET shows another owner (another installation, or no azmc tag)
    LEGACY = "legacy"  # azmc-machine only (older azmc): could be any installation's, never collected
    OVER_CAP = "over-cap"  # more orphans than max_orphan_deletions: nothing deleted this sweep
    DELETE_FAILED = "delete-failed"  # tried; the next sweep tries again


class _Io(BaseModel):
    model_config = ConfigDict(frozen=True)


class SweepInput(_Io):
    orphan_grace: Annotated[timedelta, Bounded("orphan_grace")] = DEFAULT_ORPHAN_GRACE
    max_orphan_deletions: int = Field(DEFAULT_MAX_ORPHAN_DELETIONS, ge=0)
    dry_run: bool = False  # decide and report, delete nothing, signal nothing


class Drift(_Io):
    workflow_id: str
    reason: str  # "VM deallocated", "VM missing", "VM Failed", "VM running again"


class OrphanMachine(_Io):
    """An installation-owned machine in the graph whose workflow is not in the open listing."""

    name: str
    resource_group: str
    workflow_id: str
    vm: str = ""
    nics: list[str] = []
    disks: list[str] = []

    @property
    def resource_count(self) -> int:
        return (1 if self.vm else 0) + len(self.nics) + len(self.disks)


class FleetSurvey(_Io):
    machines_seen: int  # open MachineLifecycle workflows + machines known only from Azure
    drift: list[Drift] = []
    orphans: list[OrphanMachine] = []
    other_owners: int = 0  # azmc-tagged resources of other installations: never touched
    legacy: int = 0  # azmc-machine-only resources without an open workflow: reported, never collected
    graph_pages: int = 0
    visibility_pages: int = 0
    workflow_describes: int = 0  # only when the server cannot list (the time-skipping test server)
    arm_requests: int = 0


class OrphanCheckInput(_Io):
    orphan: OrphanMachine
    orphan_grace: Duration
    now: datetime  # the workflow's time, so the grace is measured on Temporal's clock


class Skipped(_Io):
    resource: str  # "VM vm1", "NIC vm1-nic", "disk vm1-os-disk"
    reason: SkipReason
    detail: str = ""


class OrphanVerdict(_Io):
    """The re-check just before deleting: what of the machine may go (confirmed by ARM GET), and what not."""

    workflow_id: str
    vm: str = ""
    nics: list[str] = []
    disks: list[str] = []
    skipped: list[Skipped] = []
    orphaned_for_s: float | None = None  # since its workflow closed or its newest resource was made
    arm_requests: int = 0

    @property
    def deletable(self) -> list[str]:
        return ([f"VM {self.vm}"] if self.vm else []) + [f"NIC {n}" for n in self.nics] + \
            [f"disk {d}" for d in self.disks]


class SweepReport(_Io):
    machines_seen: int = 0
    drifted: int = 0
    signalled: list[Drift] = []
    orphans_found: int = 0  # resources
    deleted: list[str] = []  # "NIC vm1-nic (machine/azmc-demo/vm1)"
    would_delete: list[str] = []  # a dry run's answer
    skipped: list[Skipped] = []
    capped: str = ""  # why nothing was deleted, when over the safety cap
    graph_pages: int = 0
    visibility_pages: int = 0
    workflow_describes: int = 0
    arm_requests: int = 0

    def skipped_by_reason(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for skip in self.skipped:
            counts[skip.reason.value] = counts.get(skip.reason.value, 0) + 1
        return dict(sorted(counts.items()))

    def summary(self) -> str:
        """One line for logs and the UI."""
        skipped = ", ".join(f"{k} {v}" for k, v in self.skipped_by_reason().items()) or "none"
        return (f"machines seen {self.machines_seen}, drifted {self.drifted}, orphans found {self.orphans_found}, "
                f"deleted {len(self.deleted)}, would delete {len(self.would_delete)}, skipped: {skipped}; "
                f"ARM requests {self.arm_requests} (graph pages {self.graph_pages}), "
                f"visibility pages {self.visibility_pages}")
