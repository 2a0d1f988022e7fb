"""The fleet sweep notices what happened to a VM out of band, and only then does the machine read Azure."""

from datetime import timedelta

from models.status import Phase
from tests.emulator.builders import RG
from tests.workflows.helpers import status_of, wait_for
from tests.workflows.stack import Stack
from tests.workflows.sweeping import azure, running_machine, sweep

SPARSE = {"health_check_interval": "6h"}  # the machine's own check would come hours later


def _descriptions(status) -> list[str]:
    return [op.description for op in status.recent_operations]


def _vm_reads(stack: Stack) -> int:
    counts = stack.emulator.requests()["by_operation"]
    return counts.get("virtualMachines.get", 0) + counts.get("virtualMachines.instanceView", 0)


async def test_healthy_machines_cost_no_per_machine_read_and_get_no_signal(stack: Stack) -> None:
    await running_machine(stack, "vm1", timeouts=SPARSE)
    await running_machine(stack, "vm2", timeouts=SPARSE, data_disks=[])
    reads = _vm_reads(stack)
    report = await sweep(stack)
    assert report.machines_seen == 2 and report.drifted == 0 and report.signalled == []
    assert report.graph_pages == 1 and report.arm_requests == 1
    assert _vm_reads(stack) == reads


async def test_a_vm_deallocated_out_of_band_is_started_after_the_next_sweep(stack: Stack) -> None:
    handle = await running_machine(stack, "vm1", timeouts=SPARSE)
    azure(stack).compute.virtual_machines.begin_deallocate(RG, "vm1").result()

    report = await sweep(stack, record="fleet_sweep_signals_deallocated_vm")
    assert [(d.workflow_id, d.reason) for d in report.signalled] == [("machine/azmc-demo/vm1", "VM deallocated")]
    started = await wait_for(stack.env, handle, lambda s: any("started the deallocated VM vm1" in d
                                                              for d in _descriptions(s)),
                             virtual_limit=timedelta(minutes=2))
    assert started.phase == Phase.RUNNING
    assert [r["powerState"] for r in stack.emulator.resources("virtualMachines")] == ["running"]
    assert (await sweep(stack)).signalled == []


async def test_a_vm_deleted_out_of_band_is_noticed_by_the_next_sweep(stack: Stack) -> None:
    handle = await running_machine(stack, "vm1", timeouts=SPARSE)
    azure(stack).compute.virtual_machines.begin_delete(RG, "vm1").result()

    report = await sweep(stack)
    assert [(d.workflow_id, d.reason) for d in report.signalled] == [("machine/azmc-demo/vm1", "VM missing")]
    assert report.orphans_found == 0 and report.deleted == []
    noticed = await wait_for(stack.env, handle, lambda s: s.phase != Phase.RUNNING, virtual_limit=timedelta(minutes=2))
    assert noticed.phase == Phase.UNKNOWN and "VM missing" in noticed.last_error
    # Still missing after the health timeout: the machine re-creates its VM (the sweep only told it to look).
    recreated = await wait_for(stack.env, handle, lambda s: s.phase == Phase.RUNNING and s.inventory.has_vm,
                               step=timedelta(minutes=1), virtual_limit=timedelta(minutes=30))
    assert recreated.inventory.node_name == "vm1"
    assert (await status_of(handle)).phase == Phase.RUNNING
