"""The workflow types a worker registers (workers/worker.py); a replay or a test worker takes the same."""

from workflows.machine.workflow import MachineLifecycle
from workflows.offerings.workflow import Offerings
from workflows.pool.workflow import MachinePool
from workflows.sweep.workflow import FleetSweep

ALL_WORKFLOWS: tuple[type, ...] = (MachineLifecycle, FleetSweep, Offerings, MachinePool)
