"""A fleet of Running machines written straight to the emulator's ARM API, as azmc leaves them (owner-tagged
NIC and VM; the VM makes its OS disk): what a bench of watching costs starts from, not what it measures."""

import asyncio
from typing import Any

import aiohttp

from activities.nic import build_nic
from activities.vm_body import build_vm
from bench.arm_requests import bench_spec
from emulator.seed import SEED_RESOURCE_GROUP, SEED_SUBSCRIPTION
from models.naming import OWNER_TAG, owner_value, workflow_id
from models.spec import MachineSpec

INSTALLATION = "bench"
API = {"networkInterfaces": "2024-05-01", "virtualMachines": "2024-07-01"}


def machine(index: int) -> MachineSpec:
    """The spec of the fleet's machine number `index` (no data disks)."""
    return bench_spec().model_copy(update={"name": f"m{index:05d}", "data_disks": []})


def _body(model: Any) -> dict[str, Any]:
    """The REST body of an SDK model (msrest models serialize, the newer ones are REST-shaped mappings)."""
    return model.serialize(keep_readonly=False) if hasattr(type(model), "serialize") else model.as_dict()


def _path(kind: str, name: str) -> str:
    provider = "Microsoft.Network" if kind == "networkInterfaces" else "Microsoft.Compute"
    return (f"/subscriptions/{SEED_SUBSCRIPTION}/resourceGroups/{SEED_RESOURCE_GROUP}/providers/{provider}/"
            f"{kind}/{name}?api-version={API[kind]}")


async def fill(url: str, machines: int) -> None:
    """`machines` Running machines, 32 written at a time."""
    headers = {"Authorization": "Bearer bench", "Content-Type": "application/json"}
    gate = asyncio.Semaphore(32)
    async with aiohttp.ClientSession(url, headers=headers) as session:
        async def one(index: int) -> None:
            spec = machine(index)
            tags = {**spec.machine_tags(), OWNER_TAG: owner_value(INSTALLATION,
                                                                   workflow_id(spec.resource_group, spec.name))}
            async with gate:
                nic = _body(build_nic(spec, tags))
                async with session.put(_path("networkInterfaces", f"{spec.name}-nic"), json=nic) as answer:
                    nic_id = (await answer.json())["id"]
                vm = _body(build_vm(spec, nic_id, tags))
                async with session.put(_path("virtualMachines", spec.name), json=vm) as answer:
                    answer.raise_for_status()

        await asyncio.gather(*(one(i) for i in range(machines)))
