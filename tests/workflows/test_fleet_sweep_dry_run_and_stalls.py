"""`azmc orphans` is a dry run of the same sweep; a delete Azure refuses never stops the others."""

from datetime import timedelta

from models.sweep import SkipReason
from tests.emulator.builders import RG
from tests.workflows.stack import Stack
from tests.workflows.sweeping import GRACE, azure, names, running_machine, sweep


async def test_a_dry_run_lists_what_would_go_and_changes_nothing(stack: Stack) -> None:
    kept = await running_machine(stack, "vm1", timeouts={"health_check_interval": "6h"})
    dropped = await running_machine(stack, "vm2", data_disks=[])
    await dropped.terminate("gone")
    azure(stack).compute.virtual_machines.begin_deallocate(RG, "vm1").result()
    await stack.env.sleep(GRACE + timedelta(minutes=1))
    requests = stack.emulator.requests()["by_operation"]

    report = await sweep(stack, dry_run=True)
    assert sorted(report.would_delete) == sorted(f"{r} (machine/azmc-demo/vm2)" for r in
                                                 ("VM vm2", "NIC vm2-nic", "disk vm2-os-disk"))
    assert report.deleted == [] and report.signalled == [] and report.drifted == 1
    assert len(names(stack, "vm2")) == 3
    after = stack.emulator.requests()["by_operation"]
    assert not any(after.get(op, 0) > requests.get(op, 0) for op in after if not op.endswith((".get", ".query")))
    assert [r["powerState"] for r in stack.emulator.resources("virtualMachines") if r["name"] == "vm1"] == \
        ["deallocated"]  # no reconcile was sent
    await kept.signal("delete")


async def test_a_refused_delete_is_reported_and_the_rest_still_goes(stack: Stack) -> None:
    handle = await running_machine(stack, "vm1")
    await handle.terminate("gone")
    disk = "vm1-data-0-data-disk"
    stack.emulator.add_fault("disks.delete", name=disk, status=409, code="OperationNotAllowed", times=-1)
    await stack.env.sleep(GRACE + timedelta(minutes=1))

    report = await sweep(stack)
    failed = [s for s in report.skipped if s.reason == SkipReason.DELETE_FAILED]
    assert [s.resource for s in failed] == [f"disk {disk}"] and "OperationNotAllowed" in failed[0].detail
    assert sorted(report.deleted) == sorted(f"{r} (machine/azmc-demo/vm1)" for r in
                                            ("VM vm1", "NIC vm1-nic", "disk vm1-os-disk"))
    assert names(stack, "vm1") == [f"disks {disk}"]

    stack.emulator.clear_faults()
    assert (await sweep(stack)).deleted == [f"disk {disk} (machine/azmc-demo/vm1)"]  # the next sweep
    assert names(stack, "vm1") == []
