"""Which template changes a pool applies in place: those every running machine takes with `update_spec`
(models/spec_changes.py), so the pool re-tags (or re-configures) its machines instead of replacing them.

Pure: the pool's workflow decides with it, and builds each machine's new spec as the machine's own, with the
template's new values (its zones rotated as when it was created, workflows/pool/zones.py).
"""

from typing import Any

from models.naming import pool_machine_name
from models.pool import PoolTemplate
from models.pool_io import MachineInZone
from models.spec import MachineSpec
from models.spec_changes import changed_fields, needs_new_vm


def in_place_changes(old: PoolTemplate, new: PoolTemplate, pool: str) -> list[str]:
    """The fields `new` changes, when a running machine takes every one of them in place; [] when any of them
    needs a new VM (or nothing changed)."""
    sample = pool_machine_name(pool, "in-place", 0)  # any machine's name: names are not part of the template
    changed = changed_fields(old.machine_spec(sample, pool), new.machine_spec(sample, pool))
    return changed if changed and not needs_new_vm(changed) else []


def rotated(zones: list[str], first: str) -> list[str]:
    """The template's zones starting with the machine's own, as the pool gave them when it created it."""
    if first not in zones:
        return list(zones)
    at = zones.index(first)
    return zones[at:] + zones[:at]


def machine_spec_in_place(template: PoolTemplate, pool: str, machine: MachineInZone) -> dict[str, Any]:
    """The spec `machine` is sent in place (JSON): the template's, under its name and in its zone order."""
    spec: MachineSpec = template.machine_spec(machine.name, pool, zones=rotated(list(template.zones), machine.zone))
    return spec.model_dump(mode="json")
