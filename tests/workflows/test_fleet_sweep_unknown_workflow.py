"""Orphans whose owner workflow Temporal does not know (its history removed by retention, or never there:
a tag copied by hand) are marked by the first sweep that sees them (tag azmc-orphan-seen) and collected a
grace later: the mark, in Azure, is the record, whatever the worker. Here the workflow id never existed."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta

from models.activity_io import EnsureVmInput
from models.naming import ORPHAN_SEEN_TAG, workflow_id
from models.spec import MachineSpec
from models.sweep import SkipReason, read_orphan_mark
from tests.emulator.builders import RG
from tests.support.driver import emulator_driver
from tests.workflows.conftest import INSTALLATION, TOKEN
from tests.workflows.helpers import lifecycle_worker, machine_activity_env, spec_dict
from tests.workflows.stack import Stack
from tests.workflows.sweeping import GRACE, names, running_machine, sweep

GHOST = workflow_id(RG, "ghost")  # Temporal never ran it
GHOST_MACHINE = sorted(f"{kind} {name} ({GHOST})" for kind, name in [
    ("VM", "ghost"), ("NIC", "ghost-nic"), ("disk", "ghost-os-disk")])
# Its OS disk carries no tag to mark (it goes with its VM, deleteOption Delete): it is seen, and goes, with the VM.
GHOST_MARKED = [entry for entry in GHOST_MACHINE if "os-disk" not in entry]


def _marks(stack: Stack) -> dict[str, str]:
    """Each of ghost's resources that is marked, with its mark."""
    return {r["name"]: r["tags"][ORPHAN_SEEN_TAG] for r in stack.machine_resources("ghost")
            if ORPHAN_SEEN_TAG in (r.get("tags") or {})}


def _ghost_spec(stack: Stack) -> MachineSpec:
    return MachineSpec.model_validate(spec_dict("ghost", subnet_id=stack.emulator.subnet_id, data_disks=[]))


async def _ghost_nic(stack: Stack) -> None:
    """A NIC tagged by this installation for a workflow Temporal has never seen."""
    await machine_activity_env("ghost").run(stack.driver.ensure_nic, _ghost_spec(stack))


async def _ghost_machine(stack: Stack) -> None:
    """A VM, its NIC and OS disk, as a run of that workflow would have left them (the disk untagged)."""
    spec = _ghost_spec(stack)
    nic_id = await machine_activity_env("ghost").run(stack.driver.ensure_nic, spec)
    await machine_activity_env("ghost").run(stack.driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id))


@asynccontextmanager
async def another_worker(stack: Stack) -> AsyncIterator[Stack]:
    """A second worker with its own driver and task queue: it never saw what the first one did."""
    async with (emulator_driver(stack.emulator, INSTALLATION, TOKEN) as driver,
                lifecycle_worker(stack.env.client, driver.activities()) as task_queue):  # fmt: skip
        yield Stack(stack.env, task_queue, stack.emulator, driver)


async def test_a_nic_whose_workflow_temporal_never_knew_is_marked_then_collected_a_grace_later(stack: Stack) -> None:
    await _ghost_nic(stack)

    dry = await sweep(stack, dry_run=True)  # `azmc orphans`: says what happens, writes nothing
    assert dry.skipped_by_reason() == {SkipReason.FIRST_SEEN.value: 1} and dry.marked == [] and _marks(stack) == {}

    first = await sweep(stack, record="fleet_sweep_marks_unknown_workflow_orphan")
    assert first.orphans_found == 1 and first.deleted == []
    assert first.skipped_by_reason() == {SkipReason.FIRST_SEEN.value: 1}
    assert first.marked == [f"NIC ghost-nic ({GHOST})"]
    mark = _marks(stack)["ghost-nic"]
    seen = first.skipped[0]
    assert seen.workflow_id == GHOST and seen.orphan_since == read_orphan_mark(mark)
    assert seen.eligible_at == read_orphan_mark(mark) + GRACE

    await stack.env.sleep(GRACE - timedelta(minutes=2))
    async with another_worker(stack) as restarted:
        late = await sweep(restarted)
    assert late.deleted == [] and late.marked == []
    assert late.skipped_by_reason() == {SkipReason.YOUNGER_THAN_GRACE.value: 1}
    assert (late.skipped[0].orphan_since, late.skipped[0].eligible_at) == (seen.orphan_since, seen.eligible_at)
    assert _marks(stack) == {"ghost-nic": mark}

    await stack.env.sleep(timedelta(minutes=3))
    collected = await sweep(stack)
    assert collected.deleted == [f"NIC ghost-nic ({GHOST})"]
    assert names(stack, "ghost") == []


async def test_an_old_vm_whose_workflow_temporal_never_knew_waits_a_grace_from_its_first_sighting(
        stack: Stack) -> None:
    await _ghost_machine(stack)
    await stack.env.sleep(GRACE * 3)  # made long ago: its creation time says nothing of when it was orphaned

    first = await sweep(stack)
    assert first.deleted == [] and first.orphans_found == 3  # the VM names its OS disk
    assert sorted(first.marked) == GHOST_MARKED
    assert sorted(_marks(stack)) == ["ghost", "ghost-nic"]
    assert {s.reason for s in first.skipped} == {SkipReason.FIRST_SEEN}

    await stack.env.sleep(GRACE + timedelta(minutes=1))
    collected = await sweep(stack)
    assert sorted(collected.deleted) == GHOST_MACHINE
    assert names(stack, "ghost") == []  # the OS disk went with its VM


async def test_a_machine_applied_again_loses_its_marks(stack: Stack) -> None:
    await _ghost_machine(stack)
    assert (await sweep(stack)).marked  # first seen
    assert sorted(_marks(stack)) == ["ghost", "ghost-nic"]

    machine = await running_machine(stack, "ghost", data_disks=[])  # `azmc apply`: the workflow exists now
    again = await sweep(stack)
    assert again.orphans_found == 0 and again.marked == []
    assert sorted(again.unmarked) == GHOST_MARKED
    assert _marks(stack) == {}
    assert (await sweep(stack)).unmarked == []
    await machine.signal("delete")
    await machine.result()
