"""PoolSpec: N identical machines from one template (a MachineSpec without `name`), rolled out by a strategy.

Validation names the field as MachineSpec's does; a template is checked as the MachineSpec of one of the
pool's machines would be (derived NIC and disk names included), so a pool never starts machines Azure refuses.
"""

import hashlib
import json
import re
from collections.abc import Mapping
from datetime import timedelta
from typing import Annotated, Any, Self

from pydantic import Field, ValidationError, ValidationInfo, field_validator, model_validator

from models.arm_names import MACHINE_NAME, NameRule
from models.durations import Bounded
from models.naming import POOL_MACHINE_SUFFIX, pool_machine_name
from models.pool_status import PoolMachine, PoolOperation, PoolStatus, RolloutPhase
from models.spec import MachineSpec, ResourceGroup, _Strict
from models.validation import field_path, problem

__all__ = ["POOL_SETTINGS", "PoolMachine", "PoolOperation", "PoolSpec", "PoolStatus", "PoolTemplate", "RolloutPhase",
           "Strategy", "flat_settings", "setting_changes", "template_revision"]

# A pool's name prefixes its machines' names (`<pool>-<5 chars>`), so it follows the machine name rule.
POOL_SPEC_NAME = NameRule(
    "pool name", 1, MACHINE_NAME.max_length - 1 - POOL_MACHINE_SUFFIX, re.compile(MACHINE_NAME.pattern.pattern),
    "lower-case letters, digits and '-', starting and ending with a letter or digit "
    "(the pool's machines are named <pool>-<5 characters>)")
# Hundreds of machines, as the issue asks; the bound keeps the pool's status and state far below
# Temporal's payload limit (models/pool_status.py keeps a machine's entry compact).
MAX_REPLICAS = 1000
_SET_BY_POOL = ("name", "pool")
# A pool's settings besides its template and replicas: a running pool changes them with the set_settings update.
POOL_SETTINGS = ("strategy", "max_replacements", "max_unhealthy", "preserve_failed", "preserve_timeout", "min_ready")
_TEMPLATE_PLACEHOLDER = "template"


class Strategy(_Strict):
    """Rolling update bounds: at most replicas + max_surge machines, at least replicas - max_unavailable available."""

    max_surge: int = Field(1, ge=0, le=MAX_REPLICAS)
    max_unavailable: int = Field(0, ge=0, le=MAX_REPLICAS)

    @model_validator(mode="after")
    def _can_progress(self) -> Self:
        if self.max_surge + self.max_unavailable == 0:
            raise ValueError("max_surge and max_unavailable cannot both be 0: a rolling update could neither "
                             "add a new machine nor remove an old one")
        return self


class PoolTemplate(MachineSpec):
    """A MachineSpec without `name` and `pool`: the pool names each machine and sets `pool` to its own name."""

    name: str = Field(_TEMPLATE_PLACEHOLDER, exclude=True)
    pool: str = Field("", exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _no_name(cls, data: Any) -> Any:
        if isinstance(data, dict):
            given = [key for key in _SET_BY_POOL if key in data]
            if given:
                raise ValueError(f"{' and '.join(given)} must not be set in a template: the pool names its machines "
                                 "<pool>-<5 characters> and sets their pool")
        return data

    def machine_spec(self, name: str, pool: str, context: Mapping[str, Any] | None = None,
                     **changes: Any) -> MachineSpec:
        """The spec of the pool's machine `name` (ValidationError when Azure's name rules refuse a derived name);
        `changes`: fields the pool sets per machine (its zones' order); `context`: the template's own."""
        data = {**self.model_dump(mode="json"), **changes, "name": name, "pool": pool}
        return MachineSpec.model_validate(data, context=context)

    def as_input(self) -> dict[str, Any]:
        """The template as a caller writes it (JSON), secrets included: for set_template and the carried state."""
        return self.model_dump(mode="json")


def template_revision(template: Mapping[str, Any]) -> str:
    """5 hex characters naming a template as JSON. The pool takes it from the template as it was sent (in its
    history, so a replay under newer code, whose MachineSpec may dump differently, names the same machines)."""
    text = json.dumps(template, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:5]


class PoolSpec(_Strict):
    name: str = Field(json_schema_extra=POOL_SPEC_NAME.json_schema())  # checked by POOL_SPEC_NAME
    resource_group: ResourceGroup
    replicas: int = Field(ge=0, le=MAX_REPLICAS)
    template: PoolTemplate
    strategy: Strategy = Strategy()
    # How many Failed machines may be replaced at once across the pool (MCM's meltdown guard); 0: none.
    max_replacements: int = Field(1, ge=0, le=MAX_REPLICAS)
    # Above this many Unhealthy machines (a count, or a share of replicas: "40%") the pool stops every repair:
    # so many at once is an outage, which repairs would only make worse (Cluster API's maxUnhealthy).
    max_unhealthy: int | str = "40%"
    # How many Failed machines to keep (powered off, not counted in replicas) for diagnosis, and how long.
    preserve_failed: int = Field(0, ge=0, le=MAX_REPLICAS)
    preserve_timeout: Annotated[timedelta, Bounded("preserve_timeout")] = timedelta(hours=96)
    # How long a new machine must stay Running before it counts as available.
    min_ready: Annotated[timedelta, Bounded("min_ready")] = timedelta(0)

    @model_validator(mode="before")
    @classmethod
    def _template_in_pool_group(cls, data: Any) -> Any:
        """The template's resource group defaults to the pool's (another one is refused below)."""
        if isinstance(data, dict) and isinstance(data.get("template"), dict) and "resource_group" in data:
            template = data["template"]
            if "resource_group" not in template:
                return {**data, "template": {**template, "resource_group": data["resource_group"]}}
        return data

    @field_validator("name")
    @classmethod
    def _pool_name(cls, value: str) -> str:
        return POOL_SPEC_NAME.check(value)

    @field_validator("max_unhealthy", mode="before")
    @classmethod
    def _count_or_share(cls, value: Any) -> int | str:
        """Before pydantic's own (which would take true for 1 and name two union branches): one message for both."""
        refused = f"{value!r}: a count from 0 to {MAX_REPLICAS}, or a share of replicas such as \"40%\""
        if isinstance(value, int) and not isinstance(value, bool):
            if not 0 <= value <= MAX_REPLICAS:
                raise ValueError(refused)
            return value
        text = value.strip() if isinstance(value, str) else ""
        if not (text.endswith("%") and text[:-1].isdigit() and 0 <= int(text[:-1]) <= 100):
            raise ValueError(refused)
        return text

    def unhealthy_limit(self) -> int:
        """The most Unhealthy machines at which the pool still repairs (a share of replicas rounds down, as Cluster
        API's maxUnhealthy)."""
        if isinstance(self.max_unhealthy, int):
            return self.max_unhealthy
        return self.replicas * int(self.max_unhealthy[:-1]) // 100

    @field_validator("template")
    @classmethod
    def _machines_valid(cls, template: PoolTemplate, info: ValidationInfo) -> PoolTemplate:
        group = info.data.get("resource_group")
        if group is not None and template.resource_group != group:
            raise ValueError(f"resource_group {template.resource_group!r} differs from the pool's {group!r}: "
                             "a pool's machines live in its resource group (leave it out of the template)")
        if "name" in info.data:  # absent when the name itself was refused
            # The longest name a machine of this pool gets; the derived NIC and disk names follow from it.
            sample = pool_machine_name(info.data["name"], "00000", 0)
            try:
                template.machine_spec(sample, info.data["name"], info.context)
            except ValidationError as err:
                raise ValueError("; ".join(f"{field_path(item)}: {problem(item)}" for item in err.errors())) from None
        return template

    @field_validator("preserve_timeout")
    @classmethod
    def _positive(cls, value: timedelta) -> timedelta:
        if value <= timedelta(0):
            raise ValueError("must be positive")
        return value

    @field_validator("min_ready")
    @classmethod
    def _not_negative(cls, value: timedelta) -> timedelta:
        if value < timedelta(0):
            raise ValueError("must not be negative")
        return value

    @property
    def revision(self) -> str:
        """The revision of this spec's template as `model_dump(mode="json")` sends it (what azmc's CLI starts)."""
        return template_revision(self.template.as_input())

    def with_changes(self, context: Mapping[str, Any] | None, /, **changes: Any) -> "PoolSpec":
        """A validated copy (the model is frozen): for scale and set_template. `context`: CHECK_BOUNDS when a
        change is new input (models/durations.py), None for what the pool holds already."""
        return PoolSpec.model_validate({**self.model_dump(mode="json"), **changes}, context=context)

    @property
    def settings(self) -> dict[str, Any]:
        """POOL_SETTINGS as the spec writes them (JSON): the pool's status shows them, `azmc apply` compares."""
        return {key: value for key, value in self.model_dump(mode="json").items() if key in POOL_SETTINGS}


def flat_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """{"strategy.max_surge": 1, "max_replacements": 1, ...}: one level, as changes and views name them."""
    flat: dict[str, Any] = {}
    for key, value in settings.items():
        if isinstance(value, Mapping):
            flat.update({f"{key}.{inner}": item for inner, item in value.items()})
        else:
            flat[key] = value
    return flat


def setting_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """["max_replacements 1 -> 3", "strategy.max_surge 1 -> 2"]: each setting that differs, in `after`'s order."""
    old, new = flat_settings(before), flat_settings(after)
    return [f"{key} {old.get(key, '-')} -> {value}" for key, value in new.items() if old.get(key) != value]
