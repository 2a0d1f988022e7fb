"""The fleet sweep's contract: its settings, what one survey finds, and the report a sweep returns.

One FleetSweep run (every minute, from the Temporal Schedule `azmc-fleet-sweep`) reads the whole fleet
with one paged Resource Graph query and one paged visibility listing, signals `reconcile` to machines
that drifted and collects orphans: resources this installation tagged whose machine has no open workflow.

An orphan's grace counts from the latest of: its workflow closed, a resource was made, and its mark (the
tag `azmc-orphan-seen`). Temporal may know no workflow of the owner at all (its history removed by the
namespace's retention, a tag copied by hand), and a NIC says nothing of its age: the first sweep that
sees such an orphan marks it, and collects it a grace later. The mark is in Azure, on the resource, so it
survives sweeps, worker restarts and Temporal itself, and an operator sees it; a sweep that finds the
machine's workflow open again removes it.
"""

from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from models.durations import Bounded, Duration
from models.foresight import MachineNotices

SWEEP_WORKFLOW = "FleetSweep"
SCHEDULE_ID = "azmc-fleet-sweep"
DEFAULT_SWEEP_INTERVAL = timedelta(minutes=1)
# Must exceed Resource Graph's lag (seconds usually, minutes at times) and the time a machine takes
# between its workflow's start and its first visibility record.
DEFAULT_ORPHAN_GRACE = timedelta(minutes=30)
DEFAULT_MAX_ORPHAN_DELETIONS = 20
# `upgrade` signals per sweep to runs idle on an older Worker Deployment Version (docs/upgrades.md): at one sweep
# a minute, 1,000 machines move within 10 minutes, without a thundering herd of continue-as-new.
DEFAULT_MAX_UPGRADE_SIGNALS = 100


class SkipReason(StrEnum):
    """Why the sweep left an orphan candidate alone (each is counted in the report)."""

    WORKFLOW_OPEN = "workflow-open"  # the re-check found the machine's workflow running
    YOUNGER_THAN_GRACE = "younger-than-grace"
    # Temporal knows no workflow of the owner: marked now (azmc-orphan-seen), collected a grace later.
    FIRST_SEEN = "first-seen"
    AGE_UNKNOWN = "age-unknown"  # nothing to measure from (sweeps before orphan marks said so of NICs)
    GONE = "gone"  # the direct GET found nothing: the graph lagged
    NOT_OURS = "not-ours"  # the direct GET shows another owner (another installation, or no azmc tag)
    LEGACY = "legacy"  # azmc-machine only (older azmc): could be any installation's, never collected
    OVER_CAP = "over-cap"  # more orphans than max_orphan_deletions: nothing deleted this sweep
    DELETE_FAILED = "delete-failed"  # tried; the next sweep tries again


class _Io(BaseModel):
    model_config = ConfigDict(frozen=True)


def orphan_mark(seen_at: datetime) -> str:
    """The value of the tag azmc-orphan-seen: UTC, to the second."""
    return seen_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_orphan_mark(value: str | None) -> datetime | None:
    """The time a mark says; None without one, or for a value that is no time with its zone (it is then
    written again, as if unmarked)."""
    try:
        seen_at = datetime.fromisoformat(value) if value else None
    except ValueError:
        return None
    return seen_at if seen_at is not None and seen_at.tzinfo is not None else None


class SweepInput(_Io):
    orphan_grace: Annotated[timedelta, Bounded("orphan_grace")] = DEFAULT_ORPHAN_GRACE
    max_orphan_deletions: int = Field(DEFAULT_MAX_ORPHAN_DELETIONS, ge=0)
    dry_run: bool = False  # decide and report, delete nothing, signal nothing
    max_upgrade_signals: int = Field(DEFAULT_MAX_UPGRADE_SIGNALS, ge=0)


class OutdatedQuery(_Io):
    """Open machines, pools and offerings memories whose Worker Deployment Version is not this one."""

    deployment_name: str
    build_id: str
    limit: int = Field(ge=0)


class Outdated(_Io):
    workflow_ids: list[str] = []  # at most the query's limit
    more: bool = False  # others remain for the next sweeps


class Drift(_Io):
    workflow_id: str
    # "VM deallocated", "VM missing", "VM Failed", "VM running again", "Resource Health Unavailable: <summary>",
    # "Resource Health Available again": sent as the reconcile's reason.
    reason: str


class OrphanMachine(_Io):
    """An installation-owned machine in the graph whose workflow is not in the open listing."""

    name: str
    resource_group: str
    workflow_id: str
    vm: str = ""
    nics: list[str] = []
    disks: list[str] = []
    public_ips: list[str] = []  # spec `public_ip`: collected after the NICs that hold them

    @property
    def resource_count(self) -> int:
        return (1 if self.vm else 0) + len(self.nics) + len(self.disks) + len(self.public_ips)


class FleetSurvey(_Io):
    machines_seen: int  # open MachineLifecycle workflows + machines known only from Azure
    phases: dict[str, int] = {}  # open MachineLifecycle workflows by their AzmcPhase (the worker's metrics)
    drift: list[Drift] = []
    orphans: list[OrphanMachine] = []
    # Open machines whose resources the graph shows marked orphaned: the machine is back, the mark goes.
    marked_open: list[OrphanMachine] = []
    other_owners: int = 0  # azmc-tagged resources of other installations: never touched
    # Open machines whose VM publishes its scheduled events, with what Azure announced of it (models/foresight.py).
    notices: list[MachineNotices] = []
    legacy: int = 0  # azmc-machine-only resources without an open workflow: reported, never collected
    graph_pages: int = 0
    visibility_pages: int = 0
    workflow_describes: int = 0  # only when the server cannot list (the time-skipping test server)
    arm_requests: int = 0


class OrphanCheckInput(_Io):
    orphan: OrphanMachine
    orphan_grace: Duration
    now: datetime  # the workflow's time, so the grace is measured on Temporal's clock


class OrphanMarkInput(_Io):
    """Mark the resources of `orphan` seen orphaned at `seen_at` (a mark already there stays), or, with
    None, remove their marks (the machine's workflow is open again)."""

    orphan: OrphanMachine
    seen_at: datetime | None


class Skipped(_Io):
    resource: str  # "VM vm1", "NIC vm1-nic", "disk vm1-os-disk"
    reason: SkipReason
    detail: str = ""
    workflow_id: str = ""  # the machine workflow the resource's owner tag names
    orphan_since: datetime | None = None  # what its grace counts from
    eligible_at: datetime | None = None  # when a sweep may delete it (younger-than-grace, first-seen)


class OrphanVerdict(_Io):
    """The re-check just before deleting: what of the machine may go (confirmed by ARM GET), and what not."""

    workflow_id: str
    vm: str = ""
    nics: list[str] = []
    disks: list[str] = []
    public_ips: list[str] = []
    skipped: list[Skipped] = []
    orphaned_for_s: float | None = None  # since its workflow closed, its newest resource was made or its mark
    # Resources to mark seen orphaned at `first_seen` (Temporal knows no workflow of the owner).
    to_mark: OrphanMachine | None = None
    first_seen: datetime | None = None
    arm_requests: int = 0

    @property
    def deletable(self) -> list[str]:
        return ([f"VM {self.vm}"] if self.vm else []) + [f"NIC {n}" for n in self.nics] + \
            [f"disk {d}" for d in self.disks] + [f"public IP {p}" for p in self.public_ips]


class SweepReport(_Io):
    machines_seen: int = 0
    phases: dict[str, int] = {}  # open machines by phase, as the survey listed them
    drifted: int = 0
    signalled: list[Drift] = []
    orphans_found: int = 0  # resources
    deleted: list[str] = []  # "NIC vm1-nic (machine/azmc-demo/vm1)"
    marked: list[str] = []  # marked azmc-orphan-seen by this sweep, as `deleted`
    unmarked: list[str] = []  # marks removed: the machine's workflow is open again
    would_delete: list[str] = []  # a dry run's answer
    skipped: list[Skipped] = []
    capped: str = ""  # why nothing was deleted, when over the safety cap
    graph_pages: int = 0
    visibility_pages: int = 0
    workflow_describes: int = 0
    arm_requests: int = 0
    upgrade_signalled: list[str] = []  # runs on an older version sent `upgrade`
    upgrades_left: bool = False  # more remain than max_upgrade_signals: the next sweeps signal them
    foresight_signalled: list[str] = []  # "machine/rg/vm1: Reboot 0001 scheduled ...": sent `foresight`

    def skipped_by_reason(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for skip in self.skipped:
            counts[skip.reason.value] = counts.get(skip.reason.value, 0) + 1
        return dict(sorted(counts.items()))

    def summary(self) -> str:
        """One line for logs and the UI."""
        skipped = ", ".join(f"{k} {v}" for k, v in self.skipped_by_reason().items()) or "none"
        return (f"machines seen {self.machines_seen}, drifted {self.drifted}, orphans found {self.orphans_found}, "
                f"deleted {len(self.deleted)}, would delete {len(self.would_delete)}, marked {len(self.marked)}, "
                f"upgrade signalled {len(self.upgrade_signalled)}{' (more left)' if self.upgrades_left else ''}, "
                f"skipped: {skipped}; "
                f"ARM requests {self.arm_requests} (graph pages {self.graph_pages}), "
                f"visibility pages {self.visibility_pages}")
