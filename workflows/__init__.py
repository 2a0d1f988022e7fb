"""Deterministic workflow code only: the tests run it in Temporal's sandbox, and it never imports activities/."""

from workflows.machine.workflow import MachineLifecycle
from workflows.offerings.workflow import Offerings
from workflows.pool.workflow import MachinePool
from workflows.sweep.workflow import FleetSweep

ALL_WORKFLOWS: tuple[type, ...] = (MachineLifecycle, FleetSweep, Offerings, MachinePool)

__all__ = ["ALL_WORKFLOWS", "FleetSweep", "MachineLifecycle", "MachinePool", "Offerings"]
