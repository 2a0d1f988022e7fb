"""What machines ask and tell the shared memory of refused offerings (the `Offerings` workflow), and its state."""

from datetime import datetime

from pydantic import BaseModel, ConfigDict

from models.offerings import Offering, Refusal

OFFERINGS_ID_PREFIX = "offerings"


def offerings_workflow_id(subscription: str, location: str) -> str:
    """`offerings/<subscription>/<location>`: one memory per place Azure's capacity is counted."""
    return f"{OFFERINGS_ID_PREFIX}/{subscription}/{location}"


class OfferingsQuestion(BaseModel):
    """"Which of these offerings may I try at `at`?" `at` is the asking machine's workflow time, so the
    answer does not depend on when the memory last ran a task (a query sees the state of its last task)."""

    model_config = ConfigDict(frozen=True)

    subscription: str
    location: str
    offerings: list[Offering]
    at: datetime


class RefusalReport(BaseModel):
    """"Azure refused this offering with `code`": the memory turns it into a Refusal (models/refusals.py)."""

    model_config = ConfigDict(frozen=True)

    offering: Offering
    code: str
    message: str = ""
    machine: str = ""  # resource_group/name


class OfferingsMemory(BaseModel):
    """The `Offerings` workflow's input and state, carried through continue-as-new (expired entries dropped)."""

    subscription: str
    location: str
    refusals: list[Refusal] = []
    runs: int = 1
    history_limit: int = 0  # 0: continue as new when the server suggests it (tests set a small one)
