"""MachineStatus, the `status` query's answer, with MCM's phase and stage names."""

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel

from models.inventory import Inventory
from models.offerings import Offering, SkippedOffering


class Phase(StrEnum):
    PENDING = "Pending"
    CREATING = "Creating"
    RUNNING = "Running"
    UNKNOWN = "Unknown"
    CRASH_LOOP_BACK_OFF = "CrashLoopBackOff"
    FAILED = "Failed"
    TERMINATING = "Terminating"
    DELETED = "Deleted"


class Stage(StrEnum):
    VALIDATE = "Validate"
    CREATE = "Create"
    COMPENSATE = "Compensate"
    HEALTH_CHECK = "HealthCheck"
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
    # A `preserve` signal kept this machine (for diagnosis): VM deallocated, disks and NIC kept, never
    # started or re-created again; only `delete` removes it. The reason and when, as the signal said.
    preserved: bool = False
    preserved_reason: str = ""
    preserved_at: datetime | None = None
    # The last messages refused because their payload could not be decoded, oldest first.
    refused: list[RefusedMessage] = []
