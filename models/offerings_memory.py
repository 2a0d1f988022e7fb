"""What machines ask and tell the shared memory of refused offerings (the `Offerings` workflow), and its state."""

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from models.offering_claims import Probe, Proven
from models.offerings import Offering, Refusal
from models.quota import QuotaClaim, QuotaReading
from models.size_features import SkuReading

OFFERINGS_ID_PREFIX = "offerings"


OFFERINGS_QUEUE_SUFFIX = "-offerings"


def offerings_workflow_id(subscription: str, location: str) -> str:
    """`offerings/<subscription>/<location>`: one memory per place Azure's capacity is counted."""
    return f"{OFFERINGS_ID_PREFIX}/{subscription}/{location}"


def offerings_task_queue(task_queue: str) -> str:
    """The memory's own task queue beside the machines' `task_queue` (`azmc` -> `azmc-offerings`).

    On the machines' queue its tasks waited behind theirs: with 10,000 machines started at once, its first
    task waited 71 s and every machine's question timed out. Its own queue, polled by every worker, answers
    in milliseconds whatever the machines' backlog. Idempotent: the memory's own queue maps to itself."""
    return task_queue if task_queue.endswith(OFFERINGS_QUEUE_SUFFIX) else task_queue + OFFERINGS_QUEUE_SUFFIX


class OfferingsQuestion(BaseModel):
    """"Which of these offerings may I try at `at`?" `at` is the asking machine's workflow time, so the
    answer does not depend on when the memory last ran a task (a query sees the state of its last task)."""

    model_config = ConfigDict(frozen=True)

    subscription: str
    location: str
    offerings: list[Offering]
    at: datetime


class RefusalReport(BaseModel):
    """How an attempt at `offering` ended. Refused (`code`, a capacity code): the memory turns it into a
    Refusal (models/refusals.py); `worked`: the offering is proven; either way the machine's probe ends."""

    model_config = ConfigDict(frozen=True)

    offering: Offering
    code: str = ""
    message: str = ""
    machine: str = ""  # resource_group/name
    worked: bool = False


class ProbeRelease(BaseModel):
    """`machine` stopped (deleted, Failed, continued as new) while the memory may hold probes of it: they end."""

    model_config = ConfigDict(frozen=True)

    subscription: str
    location: str
    machine: str  # resource_group/name
    reason: str = ""


class Forgotten(BaseModel):
    """What `forget` dropped: the refusals, and the probes (machines waiting for them try at once)."""

    model_config = ConfigDict(frozen=True)

    refusals: int = 0
    probes: int = 0


# azmc 0.2 carried the memory without a kind: version 1 (workflows/offerings/workflow.py upgrades it).
MEMORY_KIND = "azmc.offerings.memory/v2"


class OfferingsMemory(BaseModel):
    """The `Offerings` workflow's input and state, carried through continue-as-new (expired entries dropped)."""

    kind: str = MEMORY_KIND  # the version of this shape (workflows/carried.py)
    subscription: str
    location: str
    refusals: list[Refusal] = []
    probes: list[Probe] = []  # models/offering_claims.py
    proven: list[Proven] = []
    # Foreseen quota (models/quota.py, workflows/offerings/quota.py): the last reading of the usages, the claims
    # handed out since, and which machine was asked to read them when.
    usages: QuotaReading | None = None
    quota_claims: list[QuotaClaim] = []
    usages_asked: datetime | None = None
    usages_reader: str = ""
    # The sizes' capabilities (models/size_features.py, workflows/offerings/skus.py): the last reading of the
    # resource SKUs, and when a machine was asked to read them.
    skus: SkuReading | None = None
    skus_asked: datetime | None = None
    skus_reader: str = ""
    runs: int = 1
    history_limit: int = 0  # 0: continue as new when the server suggests it (tests set a small one)
