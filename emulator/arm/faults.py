"""Fault injection rules (`POST /_emulator/faults`, `--faults FILE`)."""

from __future__ import annotations

import fnmatch
import itertools
import json
import random
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from emulator.arm.errors import ArmError
from emulator.compute.allocation.capacity import ALLOCATION_FAILED, ZONAL_ALLOCATION_FAILED

_DEFAULT_CODES = {400: "BadRequest", 401: "AuthenticationFailed", 403: "AuthorizationFailed",
                  404: "ResourceNotFound", 409: "Conflict", 429: "TooManyRequests",
                  500: "InternalServerError", 503: "ServiceUnavailable"}


# Compute's code for a create whose guest did not report provisioned in time; the VM may still finish.
OS_PROVISIONING_TIMED_OUT = "OSProvisioningTimedOut"
_OS_PROVISIONING_TIMED_OUT_MESSAGE = ("OS Provisioning for VM did not finish in the allotted time. The VM may still "
                                      "finish provisioning successfully. Please check provisioning state later.")

# Azure's own wording, used when a rule gives the code but no message.
_DEFAULT_MESSAGES = {"AllocationFailed": ALLOCATION_FAILED, "ZonalAllocationFailed": ZONAL_ALLOCATION_FAILED,
                     OS_PROVISIONING_TIMED_OUT: _OS_PROVISIONING_TIMED_OUT_MESSAGE}


class FaultRule(BaseModel):
    """Matches `<resourceType>.<verb>` (glob) and a resource name (glob).

    `status` 0 with a `delay_s` only slows the request/operation down. `delay_s` is wall seconds
    (not time-scaled): it is an explicit test knob, not a built-in Azure delay.
    """

    model_config = ConfigDict(extra="forbid")

    operation: str
    name: str = "*"
    status: int = Field(500, ge=0, le=599)
    code: str = ""
    message: str = ""
    times: int = Field(1, ge=-1)
    probability: float = Field(1.0, ge=0.0, le=1.0)
    stage: Literal["request", "operation"] = "request"
    delay_s: float = Field(0.0, ge=0.0, le=3600.0)
    # The wait the failed answer asks for (`Retry-After`, as ARM sends with every 429); none when unset.
    retry_after_s: float | None = Field(None, ge=0.0, le=3600.0)
    # The operation ends Failed, yet its resource finishes this many Azure seconds later (emulator clock; 0: already
    # when the operation reports Failed): Azure's late success after a create it reported Failed (e.g.
    # OSProvisioningTimedOut, "the VM may still finish provisioning"). Only a failing fault at stage operation.
    late_success_s: float | None = Field(None, ge=0.0, le=86400.0)

    @model_validator(mode="after")
    def _late_success_needs_a_failed_operation(self) -> FaultRule:
        if self.late_success_s is not None and (self.stage != "operation" or not self.fails):
            raise ValueError("late_success_s needs stage 'operation' and a failing status (>= 400)")
        return self

    @property
    def fails(self) -> bool:
        return self.status >= 400

    def error(self) -> ArmError:
        code = self.code or _DEFAULT_CODES.get(self.status, "InternalServerError")
        message = self.message or _DEFAULT_MESSAGES.get(code, f"Injected fault for {self.operation} ({code}).")
        return ArmError(self.status or 500, code, message)


class Fault(FaultRule):
    id: str
    hits: int = 0


class FaultRegistry:
    def __init__(self) -> None:
        self._faults: dict[str, Fault] = {}
        self._ids = itertools.count(1)

    def add(self, rule: FaultRule) -> Fault:
        fault = Fault(id=f"fault-{next(self._ids)}", **rule.model_dump())
        self._faults[fault.id] = fault
        return fault

    def add_raw(self, raw: dict[str, Any]) -> Fault:
        return self.add(FaultRule.model_validate(raw))

    def remove(self, fault_id: str) -> bool:
        return self._faults.pop(fault_id, None) is not None

    def clear(self) -> None:
        self._faults.clear()

    def list(self) -> list[dict[str, Any]]:
        return [f.model_dump() for f in self._faults.values()]

    def take(self, operation: str, name: str, stage: str) -> Fault | None:
        """The first matching rule, consumed once (rules with `times` -1 never run out)."""
        for fault in list(self._faults.values()):
            if fault.stage != stage:
                continue
            if not fnmatch.fnmatchcase(operation.lower(), fault.operation.lower()):
                continue
            if not fnmatch.fnmatchcase(name.lower(), fault.name.lower()):
                continue
            if fault.probability < 1.0 and random.random() >= fault.probability:
                continue
            fault.hits += 1
            if fault.times > 0:
                fault.times -= 1
                if fault.times == 0:
                    self._faults.pop(fault.id, None)
            return fault
        return None


def load_file(path: Path) -> list[dict[str, Any]]:
    """A JSON (or YAML) list of rules, or an object with a `faults` list."""
    text = path.read_text()
    if path.suffix in (".yaml", ".yml"):
        import yaml

        data = yaml.safe_load(text)
    else:
        data = json.loads(text)
    if isinstance(data, dict):
        data = data.get("faults", [])
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of fault rules")
    return data
