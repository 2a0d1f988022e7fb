"""Helpers for end-to-end tests that drive many machines through the public Temporal surface."""

import asyncio
import subprocess
import time
from collections.abc import Iterable
from typing import Any

import yaml
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError

from cli import machines
from cli.emulator_client import EmulatorControl
from cli.processes import temporal_binary
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, seed_subnet_id
from models.naming import MACHINE_TAG, workflow_id
from models.spec import MachineSpec
from models.status import MachineStatus
from tests.e2e.stack import ROOT, STACK_CONVERTER, Stack
from workers.settings import TASK_QUEUE


def example_spec(file: str, *left_out: str) -> dict[str, Any]:
    """`examples/<file>` (JSON or YAML) as written, without the fields `left_out` (those the test sets itself)."""
    written = yaml.safe_load((ROOT / "examples" / file).read_text())  # JSON is YAML too
    return {field: value for field, value in written.items() if field not in left_out}


def spec(name: str, data_disks: int = 0) -> MachineSpec:
    return MachineSpec.model_validate({
        "name": name, "resource_group": SEED_RESOURCE_GROUP, "location": SEED_LOCATION,
        "vm_size": "Standard_D2s_v5", "subnet_id": seed_subnet_id(),
        "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
        "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2eTest e2e",
        "data_disks": [{"lun": lun, "size_gb": 8} for lun in range(data_disks)],
    })  # fmt: skip


async def phases(client: Client, specs: Iterable[MachineSpec]) -> dict[str, str]:
    async def one(item: MachineSpec) -> tuple[str, str]:
        handle = client.get_workflow_handle(workflow_id(item.resource_group, item.name))
        if (await handle.describe()).status == WorkflowExecutionStatus.COMPLETED:
            return item.name, "Deleted"
        return item.name, str((await handle.query("status", result_type=MachineStatus)).phase)

    return dict(await asyncio.gather(*(one(item) for item in specs)))


async def phases_when_answered(client: Client, specs: Iterable[MachineSpec], timeout_s: float = 30) -> dict[str, str]:
    """`phases`, retried while queries fail because the only worker was just killed and restarts."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return await phases(client, specs)
        except RPCError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.3)


async def wait_phase(client: Client, specs: list[MachineSpec], phase: str, timeout_s: float) -> None:
    """Until every machine is in `phase`. Each round asks only the machines not seen there yet (a query makes the
    worker load the run, which costs the server and the worker CPU), then all of them once more, so that what
    returns was true of every machine at once."""
    deadline = time.monotonic() + timeout_s
    last_error = ""
    waiting = list(specs)
    while True:
        try:
            current = await phases(client, waiting or specs)
        except Exception as error:  # a query while the worker or server is down: try again
            current, last_error = {}, f"{type(error).__name__}: {error}"
        if current and all(value == phase for value in current.values()):
            if not waiting:
                return
            waiting = []  # then once more for all
            continue
        if current:
            waiting = [item for item in specs if current.get(item.name, phase) != phase]
        if time.monotonic() > deadline:
            raise AssertionError(f"not all {phase} after {timeout_s:.0f}s: {current or last_error}")
        await asyncio.sleep(0.5)


def owned(emulator: EmulatorControl, name: str) -> list[dict[str, Any]]:
    """Resources tagged as the machine's, or named like it (disks created with a VM carry no tags)."""
    return [
        r for r in emulator.resources()
        if r.get("tags", {}).get(MACHINE_TAG) == name or r["name"] == name or r["name"].startswith(f"{name}-")
    ]


def assert_exactly_its_own(emulator: EmulatorControl, item: MachineSpec) -> None:
    """The VM, its NIC and disks, nothing more (no duplicate VM or NIC), and wired to each other."""
    mine = owned(emulator, item.name)
    kinds = sorted((r["type"].lower().rsplit("/", 1)[1], r["name"]) for r in mine)
    expected = sorted([("virtualmachines", item.name), ("networkinterfaces", f"{item.name}-nic")]
                      + [("disks", disk) for disk in item.all_disk_names()])  # fmt: skip
    assert kinds == expected, (item.name, kinds)
    vm = next(r for r in mine if r["type"].lower().endswith("virtualmachines"))
    nic = next(r for r in mine if r["type"].lower().endswith("networkinterfaces"))
    assert vm["provisioningState"] == "Succeeded"
    assert vm["attachments"]["networkInterfaces"] == [nic["id"]]


async def running(stack: Stack, *items: MachineSpec) -> Client:
    """A client of the stack's Temporal, once `items` are applied and Running."""
    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    for item in items:
        await machines.apply(client, item, TASK_QUEUE)
    await wait_phase(client, list(items), "Running", timeout_s=90)
    return client


def abandon_one(stack: Stack, kept: MachineSpec, dropped: MachineSpec) -> None:
    """Both machines applied and Running, then `dropped`'s workflow terminated by an operator: its VM, NIC
    and disks are left in Azure with no workflow watching them."""
    asyncio.run(running(stack, kept, dropped))
    subprocess.run([temporal_binary(), "workflow", "terminate", "--workflow-id",
                    workflow_id(dropped.resource_group, dropped.name), "--reason", "operator",
                    "--address", stack.address], check=True, capture_output=True, timeout=30)  # fmt: skip
