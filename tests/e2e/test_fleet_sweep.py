"""The fleet sweep on the real stack: the schedule `azmc-fleet-sweep` on a dev server, `azmc orphans`
listing a terminated machine's resources, and the scheduled sweep deleting them after the grace; a NIC
whose owner tag names a workflow Temporal never knew, marked by a sweep and collected a grace later."""

import asyncio
import subprocess
import sys

from temporalio.client import Client

from cli.processes import temporal_binary
from models.naming import MACHINE_TAG, ORPHAN_SEEN_TAG, OWNER_TAG, owner_value, workflow_id
from tests.e2e.machines import abandon_one, spec
from tests.e2e.stack import ROOT, STACK_CONVERTER, Stack, cli_env, wait_until
from tests.emulator.builders import RG, nic_body
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import sdk_clients
from workers.installation import namespace_installation_id

GRACE = "20s"
INTERVAL = "5s"  # a sweep runs a workflow and reads Azure: a few within the grace are enough


def _azmc(stack: Stack, *args: str, **env: str) -> str:
    done = subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env={**cli_env(stack.address), **env},
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _names(stack: Stack, machine: str) -> set[str]:
    return {r["name"] for r in stack.emulator.control.resources() if r["name"].startswith(machine)}


def test_a_terminated_machine_is_listed_by_azmc_orphans_then_collected_by_the_schedule(stack: Stack) -> None:
    kept, dropped = spec("kept-vm"), spec("dropped-vm", data_disks=1)

    abandon_one(stack, kept, dropped)
    left = _names(stack, dropped.name)
    assert {dropped.name, f"{dropped.name}-nic", *dropped.all_disk_names()} <= left

    young = _azmc(stack, "orphans", AZMC_ORPHAN_GRACE="1h")
    assert "dry run, nothing deleted" in young and "younger-than-grace" in young
    for resource in (f"VM {dropped.name}", f"NIC {dropped.name}-nic"):
        assert resource in young, young
    listed = _azmc(stack, "orphans", AZMC_ORPHAN_GRACE="0s")
    assert f"VM {dropped.name}" in listed and "would be deleted" in listed and "kept-vm" not in listed, listed
    assert _names(stack, dropped.name) == left  # a dry run deletes nothing
    now = _azmc(stack, "orphans", "--delete", AZMC_ORPHAN_GRACE="1h")  # one real sweep: still too young
    assert "dry run" not in now and "younger-than-grace" in now and _names(stack, dropped.name) == left

    created = _azmc(stack, "schedule", "ensure", "--sweep-interval", INTERVAL, "--orphan-grace", GRACE)
    assert f"schedule azmc-fleet-sweep created: every {INTERVAL}, orphan grace {GRACE}" in created
    assert "updated" in _azmc(stack, "schedule", "ensure", "--sweep-interval", INTERVAL, "--orphan-grace", GRACE)
    wait_until(lambda: not _names(stack, dropped.name), 120, "the scheduled sweep to delete the orphans")
    assert {kept.name, f"{kept.name}-nic"} <= _names(stack, kept.name)

    described = subprocess.run([temporal_binary(), "schedule", "describe", "--schedule-id", "azmc-fleet-sweep",
                                "--address", stack.address, "-o", "json"], capture_output=True, text=True,
                               timeout=30, check=True).stdout  # fmt: skip
    assert "FleetSweep" in described and "recentActions" in described, described[:2000]


def _nic_tags(stack: Stack, name: str) -> dict[str, str]:
    return next((r.get("tags") or {} for r in stack.emulator.control.resources() if r["name"] == name), {})


def test_a_nic_whose_workflow_temporal_never_knew_is_marked_shown_and_collected(stack: Stack) -> None:
    async def installation() -> str:
        return await namespace_installation_id(await Client.connect(stack.address, data_converter=STACK_CONVERTER))

    # The schedule (if an earlier test made it) must not collect the NIC before it has been looked at.
    _azmc(stack, "schedule", "ensure", "--sweep-interval", "1h", "--orphan-grace", "1h")
    ghost = workflow_id(RG, "ghost")  # an owner tag copied by hand: no such workflow ever ran
    emulator = EmulatorHandle(url=stack.emulator.url)
    clients = sdk_clients(emulator)
    clients.network.network_interfaces.begin_create_or_update(RG, "ghost-nic", nic_body(emulator.subnet_id, {
        MACHINE_TAG: "ghost", OWNER_TAG: owner_value(asyncio.run(installation()), ghost)})).result()
    clients.close()

    swept = _azmc(stack, "orphans", "--delete", AZMC_ORPHAN_GRACE="1h")  # a scheduled sweep may have been first
    assert "NIC ghost-nic" in swept and ("first-seen" in swept or "younger-than-grace" in swept), swept
    mark = _nic_tags(stack, "ghost-nic").get(ORPHAN_SEEN_TAG, "")
    assert mark.endswith("Z"), _nic_tags(stack, "ghost-nic")
    shown = _azmc(stack, "orphans", AZMC_ORPHAN_GRACE="1h")
    row = next(line for line in shown.splitlines() if "NIC ghost-nic" in line)
    assert ghost in row and "younger-than-grace" in row and mark in row and "(in " in row, shown
    assert _nic_tags(stack, "ghost-nic").get(ORPHAN_SEEN_TAG) == mark

    _azmc(stack, "schedule", "ensure", "--sweep-interval", INTERVAL, "--orphan-grace", GRACE)
    wait_until(lambda: not _names(stack, "ghost"), 120, "the scheduled sweep to delete the marked NIC")
