"""Deterministic workflow code only: the tests run it in Temporal's sandbox, and it never imports activities/."""

from workflows.fleet_sweep import FleetSweep
from workflows.lifecycle import MachineLifecycle
from workflows.offerings import Offerings
from workflows.pool import MachinePool

ALL_WORKFLOWS: tuple[type, ...] = (MachineLifecycle, FleetSweep, Offerings, MachinePool)

__all__ = ["ALL_WORKFLOWS", "FleetSweep", "MachineLifecycle", "MachinePool", "Offerings"]
