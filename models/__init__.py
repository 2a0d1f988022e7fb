"""Pydantic types shared by workflows, activities and the CLI. Pure: no I/O, safe in the workflow sandbox."""

from models.errors import ErrorType
from models.inventory import Inventory, VmState
from models.requests import DeleteRequest
from models.spec import DataDisk, ImageReference, MachineSpec, OsDisk, Priority, SpotSettings, Timeouts
from models.status import LastOperation, MachineStatus, OperationState, Phase, Stage

__all__ = [
    "DataDisk",
    "DeleteRequest",
    "ErrorType",
    "ImageReference",
    "Inventory",
    "LastOperation",
    "MachineSpec",
    "MachineStatus",
    "OperationState",
    "OsDisk",
    "Phase",
    "Priority",
    "SpotSettings",
    "Stage",
    "Timeouts",
    "VmState",
]
