"""A machine's public IP `<vm>-pip` (spec `public_ip`, issue 28) in the seed scenario's guarantees: created on
the NIC, owned and tagged like it, in the machine's zone; deleted with the machine and verified gone; a failed
creation leaves none (compensation, then the creation timeout's cleanup)."""

from datetime import timedelta
from typing import Any

from models.status import MachineStatus, Phase
from tests.support.arm_http import arm
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

WITH_PUBLIC_IP = ["disks", "disks", "networkInterfaces", "publicIPAddresses", "virtualMachines"]


def _descriptions(status: MachineStatus) -> list[str]:
    return [op.description for op in status.recent_operations]


def _body(stack: Stack, kind: str, name: str) -> dict[str, Any]:
    [found] = [r for r in stack.emulator.resources(kind) if r["name"] == name]
    answer = arm(stack.emulator, "GET", found["id"])
    assert answer.status == 200
    return answer.body


async def test_a_public_ip_is_created_on_the_nic_and_deleted_with_the_machine(stack: Stack) -> None:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, zone="2", public_ip={})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED), step=timedelta(seconds=10))
    assert running.phase == Phase.RUNNING, running.last_error
    assert stack.kinds() == WITH_PUBLIC_IP
    assert any("ensuring public IP vm1-pip and NIC vm1-nic" in d for d in _descriptions(running))
    pip, nic = _body(stack, "publicIPAddresses", "vm1-pip"), _body(stack, "networkInterfaces", "vm1-nic")
    assert pip["sku"]["name"] == "Standard" and pip["properties"]["publicIPAllocationMethod"] == "Static"
    assert pip["zones"] == ["2"] and pip["properties"]["ipAddress"]
    assert pip["tags"] == nic["tags"]  # owned and tagged exactly like the NIC
    assert nic["properties"]["ipConfigurations"][0]["properties"]["publicIPAddress"]["id"] == pip["id"]
    assert pip["properties"]["ipConfiguration"]["id"] == nic["properties"]["ipConfigurations"][0]["id"]

    await handle.signal("delete", {"reason": "test done"})
    final = await handle.result()
    assert final.phase == Phase.DELETED and final.inventory.is_empty
    assert any(d == "delete public IP vm1-pip: done" for d in _descriptions(final))
    assert stack.machine_resources() == []


async def test_a_failed_creation_leaves_no_public_ip(stack: Stack) -> None:
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                             stage="operation", times=-1)
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, public_ip={}, timeouts={"creation": "15m"})
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    failed = await wait_for(stack.env, handle, lambda s: s.phase == Phase.FAILED and "nothing left" in
                            (s.last_operation.description if s.last_operation else ""), step=timedelta(seconds=30))
    assert stack.emulator.requests()["by_operation"].get("publicIPAddresses.put", 0) >= 1  # it was made
    assert any("public IP vm1-pip" in d for d in _descriptions(failed))
    assert stack.machine_resources() == []
    assert not stack.emulator.resources("publicIPAddresses")
    await handle.signal("delete", {"reason": "test done"})
    assert (await handle.result()).phase == Phase.DELETED


async def test_a_public_ip_on_a_reserved_nic_is_kept_with_it_and_reused(stack: Stack) -> None:
    """The seed scenario with a public IP: the NIC Azure reserves after a failed create is kept for the next
    attempt, and so is the public IP it holds (Azure would refuse its delete); both are reused, one of each."""
    stack.emulator.add_fault("virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                             message="Allocation failed. Please try another size.", stage="operation", times=1)
    stack.emulator.add_fault("networkInterfaces.delete", name="vm1-nic", status=400, code="NicReservedForAnotherVm",
                             message="Nic(s) in request is reserved for another Virtual Machine for 180 seconds. "
                                     "Please provide another nic(s) or retry after 180 seconds.", times=3)
    spec = {**spec_dict(subnet_id=stack.emulator.subnet_id, public_ip={}),
            "vm_sizes": ["Standard_D2s_v3", "Standard_D4s_v3"]}
    del spec["vm_size"]
    handle = await start_machine(stack.env.client, stack.task_queue, spec)
    running = await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED), step=timedelta(seconds=20))
    assert running.phase == Phase.RUNNING and running.attempts == 2
    assert stack.kinds() == WITH_PUBLIC_IP
    assert any("public IP vm1-pip is on NIC vm1-nic, kept for the next attempt" in d for d in _descriptions(running))
    await handle.signal("delete", {"reason": "test done"})
    assert (await handle.result()).phase == Phase.DELETED
    assert stack.machine_resources() == []
