"""Deterministic workflow code only: it runs in Temporal's sandbox and never imports activities/."""

from workflows.fleet_sweep import FleetSweep
from workflows.lifecycle import MachineLifecycle
from workflows.pool import MachinePool

ALL_WORKFLOWS: list[type] = [MachineLifecycle, FleetSweep, MachinePool]

__all__ = ["ALL_WORKFLOWS", "FleetSweep", "MachineLifecycle", "MachinePool"]
