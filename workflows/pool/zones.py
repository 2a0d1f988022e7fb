"""Balanced zone spread: each new machine gets the template's zones rotated so that the zone holding the
fewest of the pool's machines comes first (ties: the template's order). The machine still falls back to
the other zones in that order when its first has no capacity (the machine's own creation does that)."""

from collections import Counter
from collections.abc import Iterable

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.pool import PoolMachine
    from models.pool_in_place import rotated
    from models.spec import MachineSpec

from workflows.pool.plan import counted
from workflows.pool.state import PoolState


def spread_zones(zones: list[str], current: Iterable[str]) -> list[str]:
    """`zones` rotated to start with the least used of them among `current` (the pool's machines' zones)."""
    if len(zones) < 2:
        return list(zones)
    used = Counter(current)
    first = min(range(len(zones)), key=lambda i: (used[zones[i]], i))
    return rotated(zones, zones[first])


def machine_spec(state: PoolState, machine: PoolMachine) -> MachineSpec:
    """A new machine's spec from the template; with several zones, rotated for a balanced spread."""
    template = state.spec.template
    zones = spread_zones(list(template.zones), (m.zone for m in state.machines if counted(m) and m.zone))
    machine.zone = zones[0]
    return template.machine_spec(machine.name, state.spec.name, zones=zones)
