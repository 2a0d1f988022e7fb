"""MachineStatus, the `status` query's answer, with MCM's phase and stage names."""

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel

from models.foresight import Maintenance
from models.inventory import Inventory
from models.offerings import Offering, SkippedOffering


class Phase(StrEnum):
    PENDING = "Pending"
    CREATING = "Creating"
    RUNNING = "Running"
    UNHEALTHY = "Unhealthy"  # the VM runs, but a health signal says its guest or host does not work: repaired
    UNKNOWN = "Unknown"
    # Azure announced a reboot, freeze or redeploy (models/foresight.py): health paused, or redeploying ahead of it
    MAINTENANCE = "Maintenance"
    CRASH_LOOP_BACK_OFF = "CrashLoopBackOff"
    FAILED = "Failed"
    TERMINATING = "Terminating"
    DELETED = "Deleted"


class Stage(StrEnum):
    VALIDATE = "Validate"
    CREATE = "Create"
    COMPENSATE = "Compensate"
    HEALTH_CHECK = "HealthCheck"
    REPAIR = "Repair"  # a step of the repair ladder: restart, redeploy (re-creation goes through Create)
    MAINTENANCE = "Maintenance"  # what Azure announced, acted on ahead (models/foresight.py)
    POWER_ON = "PowerOn"  # starting a stopped or deallocated VM: it is never rebuilt
    INITIATE_DRAIN = "InitiateDrain"
    INITIATE_VM_DELETION = "InitiateVMDeletion"
    INITIATE_NIC_DELETION = "InitiateNICDeletion"
    INITIATE_DISK_DELETION = "InitiateDiskDeletion"
    VERIFY_DELETION = "VerifyDeletion"
    UPDATE_SPEC = "UpdateSpec"
    PRESERVE = "Preserve"  # a `preserve` signal: VM deallocated, everything kept, no healing until delete


class OperationState(StrEnum):
    PROCESSING = "Processing"
    SUCCESSFUL = "Successful"
    FAILED = "Failed"


class LastOperation(BaseModel):
    stage: Stage
    state: OperationState
    description: str = ""
    updated_at: datetime


class StalledStep(BaseModel):
    """A step that failed and waits to retry (several may wait at once, e.g. a NIC and a disk delete)."""

    stage: Stage
    description: str
    error: str = ""
    failures: int = 0
    next_retry_at: datetime | None = None


class HealthSignal(BaseModel):
    """One health signal as last read: Azure's VM agent, Resource Health, or the probe of the guest."""

    name: str  # "vm_agent", "resource_health", "probe"
    value: str  # as its source says it: "Ready", "Not Ready", "Unavailable", "2 of 3 probes failed", ...
    healthy: bool
    since: datetime  # when it took this value
    reason: str = ""  # Azure's reason (Resource Health's summary, the agent's message) or the probe's error

    def describe(self) -> str:
        verdict = "healthy" if self.healthy else "UNHEALTHY"
        reason = f": {self.reason}" if self.reason else ""
        return f"{self.name} {self.value} ({verdict} since {self.since:%Y-%m-%d %H:%M:%S} UTC){reason}"


class RepairProgress(BaseModel):
    """Where an Unhealthy machine is on its repair ladder (spec.health.repair)."""

    step: int = -1  # index of the step under way; -1: waiting timeouts.health before the first
    action: str = ""  # the step's action ("" while waiting before the first)
    started_at: datetime  # when the machine became Unhealthy (step -1), or when this step was taken
    # Why the next step waits although the current wait is over (a platform-initiated outage, or the machine's pool
    # has not allowed it yet); "" when it does not.
    held: str = ""
    # The step the machine's pool allowed (the `repair_allowed` signal), taken at the next health check.
    allowed: str = ""

    def describe(self) -> str:
        doing = f"step {self.step + 1}: {self.action}" if self.step >= 0 else \
            "waiting timeouts.health before the first step"
        held = f"; held: {self.held}" if self.held else ""
        return f"{doing} (since {self.started_at:%Y-%m-%d %H:%M:%S} UTC){held}"


class OfferingAttempt(BaseModel):
    """One creation attempt's offering, the offerings it skipped (refused recently) and how it ended."""

    attempt: int
    offering: Offering
    skipped: list[SkippedOffering] = []
    refused: str = ""  # Azure's capacity code when it refused this offering ("" while trying, or on success)


class RefusedMessage(BaseModel):
    """A signal or update not acted on because its payload could not be decoded (workflows/refusals.py)."""

    kind: str  # "signal" or "update"
    name: str
    reason: str
    at: datetime

    def describe(self) -> str:
        return f"{self.kind} {self.name!r} at {self.at:%Y-%m-%d %H:%M:%S} UTC: {self.reason}"


class MachineStatus(BaseModel):
    name: str
    resource_group: str
    pool: str = ""
    phase: Phase = Phase.PENDING
    last_operation: LastOperation | None = None
    inventory: Inventory = Inventory()
    # When Azure last told what `inventory` says: a read, or a NIC or disk deletion confirmed since (None: never).
    inventory_at: datetime | None = None
    # Creation attempts so far (1 on the first try).
    attempts: int = 0
    # The last 20 operations, oldest first.
    recent_operations: list[LastOperation] = []
    last_error: str = ""
    next_retry_at: datetime | None = None
    # Every step waiting to retry, with its error and next retry time (empty when none waits).
    stalled: list[StalledStep] = []
    # The offering (size, zone, priority) of the VM, or the one the current attempt tries.
    offering: Offering | None = None
    # The last creation attempts' offerings and what they skipped, oldest first.
    offering_attempts: list[OfferingAttempt] = []
    # While Pending because the quota reading leaves no offering room (nothing refused, nothing failed): why,
    # "standardDSv5Family 8 of 8 vCPUs in use (Standard_D2s_v5 needs 2)"; "" otherwise. The pool counts these.
    waiting_for_quota: str = ""
    # A `preserve` signal kept this machine (for diagnosis): VM deallocated, disks and NIC kept, never
    # started or re-created again; only `delete` removes it. The reason and when, as the signal said.
    preserved: bool = False
    preserved_reason: str = ""
    preserved_at: datetime | None = None
    # Each health signal the spec asks for, as last read (empty until the VM was read with them), when, and why
    # they are not current ("" while they are): a check found no VM, or could not read it.
    health: list[HealthSignal] = []
    health_read_at: datetime | None = None
    health_stale: str = ""
    # The repair ladder's progress while Unhealthy (None otherwise).
    repair: RepairProgress | None = None
    # What Azure announced that the machine acts on now, or acted on last (spec `foresight`, models/foresight.py).
    maintenance: Maintenance | None = None
    # The last messages refused because their payload could not be decoded, oldest first.
    refused: list[RefusedMessage] = []

    def health_heading(self) -> str:
        """What the signals listed are: "" while current; else "not current (<why>): as read at <time> UTC"."""
        if not self.health_stale:
            return ""
        read = f": as read at {self.health_read_at:%Y-%m-%d %H:%M:%S} UTC" if self.health_read_at else ""
        return f"not current ({self.health_stale}){read}"
