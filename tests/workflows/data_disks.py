"""What the data-survival scenarios look at in Azure (the emulator) and how they act out of band."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from emulator.seed import SEED_RESOURCE_GROUP
from models.status import MachineStatus
from tests.support.sdk import AsyncClients, async_sdk_clients
from tests.workflows.stack import Stack

RG = SEED_RESOURCE_GROUP
DATA_DISK = "vm1-data-0-data-disk"  # the one data disk of tests.workflows.helpers.spec_dict


def disk(stack: Stack, name: str = DATA_DISK) -> dict[str, Any] | None:
    """The disk as Azure has it (uniqueId, diskState, attachments), or None."""
    return next((r for r in stack.emulator.resources("disks") if r["name"] == name), None)


def unique_id(stack: Stack, name: str = DATA_DISK) -> str:
    found = disk(stack, name)
    assert found is not None, f"disk {name} is gone"
    return str(found["uniqueId"])


def vm(stack: Stack) -> dict[str, Any] | None:
    return next((r for r in stack.emulator.resources("virtualMachines") if r["name"] == "vm1"), None)


def descriptions(status: MachineStatus) -> list[str]:
    return [op.description for op in status.recent_operations]


def shown_unique_ids(status: MachineStatus) -> dict[str, str]:
    return {d.name: d.unique_id for d in status.inventory.data_disks}


@asynccontextmanager
async def operator(stack: Stack) -> AsyncIterator[AsyncClients]:
    """The real SDK, as an operator's portal or script would act behind azmc's back."""
    clients = async_sdk_clients(stack.emulator)
    try:
        yield clients
    finally:
        await clients.close()
