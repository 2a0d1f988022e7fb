"""The pieces a workflow scenario runs on, and what it asks the emulator afterwards."""

from dataclasses import dataclass
from typing import Any

from temporalio.testing import WorkflowEnvironment

from activities.driver import AzureDriver
from models.naming import MACHINE_TAG
from tests.support.emulator import EmulatorHandle


@dataclass
class Stack:
    """A time-skipping Temporal, a worker running MachineLifecycle with the real driver, the emulator."""

    env: WorkflowEnvironment
    task_queue: str
    emulator: EmulatorHandle
    driver: AzureDriver

    def machine_resources(self, name: str = "vm1") -> list[dict[str, Any]]:
        """Every emulated resource of machine `name` (by ownership tag or the VM's own name)."""
        return [r for r in self.emulator.resources()
                if (r.get("tags") or {}).get(MACHINE_TAG) == name or r["name"] == name
                or r["name"].startswith(f"{name}-")]

    def kinds(self, name: str = "vm1") -> list[str]:
        """Sorted short types: ['disks', 'disks', 'networkInterfaces', 'virtualMachines']."""
        return sorted(r["type"].split("/")[-1] for r in self.machine_resources(name))
