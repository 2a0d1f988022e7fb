"""The state a run carries into the next: the one contract between Worker Deployment Versions.

A long-lived run continues as new onto the current version (workflows/versioning.py) with its state as the input,
marked `kind: <name>/v<N>`. The code that receives it decodes every version still in use: an older one through
its upgrade functions, one after the other, then validated as this code's shape; a newer one (a rollback to
older code) as far as this code knows its fields, so the machine goes on instead of failing. Changing a carried
model's shape: docs/architecture/upgrades.md, "Changing workflow code".
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

Model = TypeVar("Model", bound=BaseModel)
Upgrade = Callable[[dict[str, Any]], dict[str, Any]]
_KIND = re.compile(r"^(?P<name>.+)/v(?P<version>[1-9][0-9]*)$")


@dataclass(frozen=True)
class CarriedShape(Generic[Model]):
    name: str  # "azmc.machine-lifecycle.state"
    model: type[Model]
    # upgrades[i] turns version i+1 into i+2; the current version is one more than their number.
    upgrades: tuple[Upgrade, ...] = ()
    # A version before any kind: what `kind` a state without one is (None: a state must have one).
    unmarked: int | None = None

    @property
    def version(self) -> int:
        return len(self.upgrades) + 1

    @property
    def kind(self) -> str:
        return f"{self.name}/v{self.version}"

    def version_of(self, value: Any) -> int | None:
        """The version `value` says it is, None when it is no carried state of this shape."""
        if not isinstance(value, dict):
            return None
        kind = value.get("kind")
        if kind is None:
            return self.unmarked
        found = _KIND.match(kind) if isinstance(kind, str) else None
        return int(found["version"]) if found and found["name"] == self.name else None

    def decode(self, value: dict[str, Any]) -> Model:
        """This code's model of a carried state of any version (pydantic's ValidationError when it is not one)."""
        version = self.version_of(value)
        if version is None:
            raise ValueError(f"not a carried {self.name}")
        for upgrade in self.upgrades[version - 1:]:
            value = upgrade(value)
        if version > self.version:  # written by newer code: what this code knows of it
            value = {key: item for key, item in value.items() if key in self.model.model_fields}
        return self.model.model_validate({**value, "kind": self.kind})
