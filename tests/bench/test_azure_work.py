"""`bench.azure_work` on 3 machines, so it cannot rot: what it measures is the Azure work of machine lifecycles (the
writes a lifecycle makes, counted by the emulator, never timed), and each of them ends with nothing left."""

from typing import Any

from bench import azure_work


async def test_three_lifecycles_of_azure_work_make_a_lifecycles_writes_each(emulator: Any) -> None:
    measured = await azure_work.lifecycles(emulator.url, "aw", 3)
    assert measured["cpu_s"] > 0 and measured["seconds"] > 0
    ops = emulator.requests()["by_operation"]
    lifecycles = 3 + azure_work.WARM_UP
    writes = ("networkInterfaces.put", "virtualMachines.put", "virtualMachines.powerOff", "virtualMachines.delete")
    assert {op: ops.get(op, 0) for op in writes} == dict.fromkeys(writes, lifecycles)
    # Two reads of what exists (a list, shared when machines ask together) and two VM GETs a lifecycle.
    assert 0 < ops["resources.list"] <= 2 * lifecycles and ops["virtualMachines.get"] == 2 * lifecycles
