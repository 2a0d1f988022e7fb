"""Which revision a machine a pool adopts runs: the pool's template, one change in place away from it, or another.

A pool applied again after its workflow ended (terminated, or failed) adopts the machines its earlier life started
(workflows/pool/adoption.py). Their template may be older: what the machine's workflow was started with says so.
Its fields that need a new VM never change on a running machine (update_spec refuses them, models/spec_changes.py),
so its run's input tells them exactly; the fields it takes in place are sent again (update_spec) to be sure.
Pure: the adopting activity decides with it (activities/pool/adoption.py).
"""

from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from models.pool import PoolTemplate, template_revision
from models.pool_in_place import rotated
from models.spec import MachineSpec
from models.spec_changes import changed_fields, needs_new_vm


def spec_of_run_input(value: Any) -> MachineSpec | None:
    """A machine's spec from its run's input: a MachineSpec (its first run), or the state an earlier run carried
    into it (a `kind` marks it), which holds the spec as `spec`. None when it is neither."""
    if isinstance(value, dict) and isinstance(value.get("kind"), str) and isinstance(value.get("spec"), dict):
        value = value["spec"]
    try:
        return MachineSpec.model_validate(value)
    except ValidationError:
        return None


@dataclass(frozen=True)
class Verdict:
    zone: str  # the zone the pool gave it first (its zones' first): where a spread counts it
    # The spec the pool's template gives it (the template's zones from its first, as the pool rotates them); JSON.
    wanted: dict[str, Any]
    changed: list[str]  # fields that differ from `wanted` ([]: it runs the template)
    needs_new_vm: list[str]  # of those, the ones it cannot take in place: it is rolled

    @property
    def in_place(self) -> bool:
        return bool(self.changed) and not self.needs_new_vm


def verdict(template: PoolTemplate, pool: str, spec: MachineSpec) -> Verdict:
    zone = spec.zones[0]
    wanted = template.machine_spec(spec.name, pool, zones=rotated(list(template.zones), zone))
    changed = changed_fields(spec, wanted)
    return Verdict(zone=zone, wanted=wanted.model_dump(mode="json"), changed=changed,
                   needs_new_vm=needs_new_vm(changed))


def own_revision(spec: MachineSpec) -> str:
    """A revision naming the template `spec` was made from (its own fields, without name and pool): an adopted
    machine of another template keeps it, so the rollout replaces it as any machine of an older revision."""
    return template_revision({key: item for key, item in spec.model_dump(mode="json").items()
                              if key not in ("name", "pool")})
