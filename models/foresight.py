"""Foresight: what Azure announces of a VM before it acts (docs/foresight.md), as the fleet sweep reads it from
Resource Graph and sends it to the machine (`FORESIGHT_SIGNAL`), and what the machine does about each.

- a Reboot or Freeze scheduled: the machine is `Maintenance` until the event is over, its health timeout and repair
  ladder paused, so a planned reboot never starts a repair;
- a Redeploy scheduled, or the host annotated as degrading: the machine redeploys itself at once (its data kept,
  a pool's `max_replacements` pacing it), before Azure's deadline;
- a Spot Preempt: the machine tells its pool, which starts a replacement at once;
- a Terminate: shown, nothing done (the VM's owner, not the platform, schedules those).
"""

from datetime import datetime, timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

# How long after an event's announced end (NotBefore + DurationInSeconds) the machine stays in Maintenance when no
# sweep says the event is over: the graph lags, and a reboot's guest takes a while to be Ready again.
MAINTENANCE_GRACE = timedelta(minutes=5)
# A Reboot or Freeze whose duration Azure does not give (-1) is held this long past its NotBefore at most.
UNKNOWN_DURATION = timedelta(minutes=15)


class NoticeKind(StrEnum):
    REBOOT = "Reboot"
    FREEZE = "Freeze"
    REDEPLOY = "Redeploy"
    PREEMPT = "Preempt"
    TERMINATE = "Terminate"
    DEGRADED = "Degraded"  # a Resource Health annotation: the host is degrading


# What each notice makes the machine do.
PAUSES_HEALTH = frozenset({NoticeKind.REBOOT, NoticeKind.FREEZE})
REDEPLOYS = frozenset({NoticeKind.REDEPLOY, NoticeKind.DEGRADED})


class Notice(BaseModel):
    """One scheduled event or annotation of a VM. `id`: the event's EventId, or the annotation's name."""

    model_config = ConfigDict(frozen=True)

    kind: NoticeKind
    id: str
    status: str = "Scheduled"  # Scheduled, Started, Completed (an annotation: Active)
    not_before: datetime | None = None  # Azure's deadline; None: at once or unknown
    duration_s: int = -1
    description: str = ""

    def headline(self) -> str:
        when = f" not before {self.not_before:%Y-%m-%d %H:%M:%SZ}" if self.not_before is not None else ""
        return f"{self.kind.value} {self.id} {self.status.lower()}{when}" + (
            f": {self.description}" if self.description else "")

    def over(self) -> bool:
        return self.status == "Completed"

    def lasts(self) -> timedelta:
        return timedelta(seconds=self.duration_s) if self.duration_s >= 0 else UNKNOWN_DURATION


class RedeployWindow(BaseModel):
    """A VM's instance view `maintenanceRedeployStatus`, shown while Azure plans to redeploy it: when its owner may
    take the maintenance itself (the self-service window, `preMaintenanceWindow*`) and when Azure does it
    (`maintenanceWindowStartTime`)."""

    model_config = ConfigDict(frozen=True)

    open_now: bool = False  # isCustomerInitiatedMaintenanceAllowed: the self-service window is open now
    start: datetime | None = None
    end: datetime | None = None
    azure_start: datetime | None = None

    def to_redeploy_in(self, notice: "Notice") -> "RedeployWindow | None":
        """This window when a redeploy for `notice` should wait for it: it ends by the deadline (the notice's
        NotBefore, else when Azure's maintenance starts). None: redeploy at once (no deadline, or it ends later)."""
        deadline = notice.not_before or self.azure_start
        if self.start is None or self.end is None or deadline is None or self.end > deadline:
            return None
        return self


class Notices(BaseModel):
    """The `foresight` signal's payload: a VM's current notices, as the latest sweep read them."""

    notices: list[Notice] = Field(default_factory=list, max_length=50)


class MachineNotices(BaseModel):
    """The sweep's finding for one open machine whose VM publishes its events."""

    model_config = ConfigDict(frozen=True)

    workflow_id: str
    notices: list[Notice]


class Maintenance(BaseModel):
    """A machine's `status.maintenance`: the notice it acts on, what it does, since when."""

    notice: Notice
    action: str  # "wait" (health paused), "redeploy", "replace" (the pool starts another)
    since: datetime
    until: datetime | None = None  # a wait: when it ends at the latest
    held: str = ""  # why the action waits (its pool has not allowed it yet)
    allowed: bool = False  # the machine's pool allowed it (`repair_allowed`)
    # A redeploy: "" until Azure's self-service window is read; "none": at once (no window before the deadline);
    # "planned": it waits for the window to open at `planned`; "open": the window is open, it redeploys.
    window: str = ""
    planned: datetime | None = None
    done: str = ""  # what was done, once over ("redeployed", "over"): the machine is Running again

    def describe(self) -> str:
        doing = {"wait": "health checks paused", "redeploy": "redeploying ahead of Azure"}.get(self.action,
                                                                                              self.action)
        until = f" until {self.until:%Y-%m-%d %H:%M:%S} UTC at the latest" if self.until and not self.done else ""
        if self.window == "planned" and self.planned is not None and not self.done:
            doing = f"redeploy planned at {self.planned:%Y-%m-%d %H:%M:%S} UTC, in Azure's self-service window"
        state = f"done: {self.done}" if self.done else (f"held: {self.held}" if self.held else doing + until)
        return f"{self.notice.headline()} - {state} (since {self.since:%Y-%m-%d %H:%M:%S} UTC)"
