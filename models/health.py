"""A machine's `health` section: which signals say it is healthy, and the ladder of repairs when it is not.

Defaults need no configuration: Azure's own view (the VM agent in the instance view, Resource Health) is on,
a probe of the guest is off, and an unhealthy machine is restarted, then redeployed, then re-created
(keeping its data disks), each step given `wait` to make it healthy before the next.
"""

from datetime import timedelta
from enum import StrEnum
from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from models.durations import Bounded


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


class RepairAction(StrEnum):
    RESTART = "restart"  # Azure's restart: the same host, the guest rebooted
    REDEPLOY = "redeploy"  # Azure's redeploy: a new host, the same disks and NIC
    RECREATE = "recreate"  # a new VM on the kept data disks (the recovery path of a missing VM)


# Actions that take the machine away from its host or VM: a pool lets at most max_replacements run at once.
REPLACING_ACTIONS = frozenset({RepairAction.REDEPLOY, RepairAction.RECREATE})


class RepairStep(_Strict):
    """One rung of the ladder: `"restart"` or `{"action": "restart", "wait": "10m"}`."""

    action: RepairAction = Field(description="restart (same host), redeploy (a new host, same disks), or recreate "
                                             "(a new VM keeping the data disks)")
    wait: Annotated[timedelta, Bounded("health.repair.wait")] = Field(
        timedelta(minutes=10), description="how long the step has to make the machine healthy before the next")

    @model_validator(mode="before")
    @classmethod
    def _action_alone(cls, data: Any) -> Any:
        return {"action": data} if isinstance(data, str) else data


class TcpProbe(_Strict):
    port: int = Field(ge=1, le=65535)


class HttpProbe(_Strict):
    port: int = Field(ge=1, le=65535)
    path: str = Field("/", pattern=r"^/[\x21-\x7e]*$", max_length=2048)
    expect_status: int = Field(200, ge=100, le=599)


class Probe(_Strict):
    """A probe of the guest at its NIC's private IP, run by the worker (docs/health.md says how it is reached)."""

    tcp: TcpProbe | None = None
    http: HttpProbe | None = None
    period: Annotated[timedelta, Bounded("health.probe.period")] = Field(
        timedelta(seconds=30), description="how often the worker probes a Running machine")
    timeout: Annotated[timedelta, Bounded("health.probe.timeout")] = Field(
        timedelta(seconds=2), description="a probe not answered within this failed")
    failure_threshold: int = Field(3, ge=1, le=100, description="failed probes in a row that make it Unhealthy")
    success_threshold: int = Field(1, ge=1, le=100, description="passed probes in a row that make it healthy again")

    @model_validator(mode="after")
    def _one_kind(self) -> Self:
        if (self.tcp is None) == (self.http is None):
            raise ValueError("give exactly one of tcp or http")
        if self.timeout >= self.period:
            raise ValueError(f"timeout ({self.timeout}) must be shorter than period ({self.period})")
        return self

    def target(self, address: str) -> str:
        kind = f"tcp port {self.tcp.port}" if self.tcp else f"http {self.http.port}{self.http.path}"  # type: ignore[union-attr]  # the validator holds exactly one of tcp and http
        return f"{kind} of {address or '(no address yet)'}"


DEFAULT_REPAIR = (RepairStep(action=RepairAction.RESTART), RepairStep(action=RepairAction.REDEPLOY),
                  RepairStep(action=RepairAction.RECREATE))


class HealthSpec(_Strict):
    """What makes a running VM healthy, and how an unhealthy one is repaired (docs/health.md)."""

    vm_agent: bool = Field(True, description="the VM agent's status in the instance view: Not Ready or missing "
                                             "is unhealthy")
    resource_health: bool = Field(True, description="Azure Resource Health's availability: Unavailable is "
                                                    "unhealthy")
    probe: Probe | None = Field(None, description="an optional tcp or http probe of the guest's private IP")
    repair: list[RepairStep] = Field(default_factory=lambda: list(DEFAULT_REPAIR), max_length=10,
                                     description="the ladder, each action once, after timeouts.health: by default "
                                                 "restart, redeploy, recreate, each with a 10m wait")

    @field_validator("repair")
    @classmethod
    def _each_once(cls, steps: list[RepairStep]) -> list[RepairStep]:
        actions = [step.action for step in steps]
        twice = sorted({str(a) for a in actions if actions.count(a) > 1})
        if twice:
            raise ValueError(f"{twice[0]} is listed twice: each repair is a step of its own")
        return steps
