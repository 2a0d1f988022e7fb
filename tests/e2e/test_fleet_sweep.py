"""The fleet sweep on the real stack: the schedule `azmc-fleet-sweep` on a dev server, `azmc orphans`
listing a terminated machine's resources, and the scheduled sweep deleting them after the grace."""

import subprocess
import sys

from cli.processes import temporal_binary
from tests.e2e.machines import abandon_one, spec
from tests.e2e.stack import ROOT, Stack, cli_env, wait_until

GRACE = "20s"


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

    created = _azmc(stack, "schedule", "ensure", "--sweep-interval", "2s", "--orphan-grace", GRACE)
    assert "schedule azmc-fleet-sweep created: every 2s, orphan grace 20s" in created
    assert "updated" in _azmc(stack, "schedule", "ensure", "--sweep-interval", "2s", "--orphan-grace", GRACE)
    wait_until(lambda: not _names(stack, dropped.name), 120, "the scheduled sweep to delete the orphans")
    assert {kept.name, f"{kept.name}-nic"} <= _names(stack, kept.name)

    described = subprocess.run([temporal_binary(), "schedule", "describe", "--schedule-id", "azmc-fleet-sweep",
                                "--address", stack.address, "-o", "json"], capture_output=True, text=True,
                               timeout=30, check=True).stdout  # fmt: skip
    assert "FleetSweep" in described and "recentActions" in described, described[:2000]
