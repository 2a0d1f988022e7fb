"""Issue 25's proof on `azmc dev`, as an operator sees it: a machine whose guest is made to hang through the
emulator's control API goes Running -> Unhealthy -> (restart) -> Running, in `azmc describe` and in the current
details the Temporal UI shows, with one restart asked of Azure."""

import json
import re
from collections.abc import Callable
from pathlib import Path

from cli.emulator_client import EmulatorControl
from tests.e2e.stack import ROOT, azmc_dev, wait_until
from tests.e2e.ui_details import current_details

WORKFLOW = "machine/azmc-demo/vm1"
# As short as the duration bounds allow, on the dev server's real clock: a probe every 5 s that fails once is
# enough to see the hang (the VM's own check comes every 30 s at the least), 10 s of timeouts.health before the
# restart (long enough to look at the Unhealthy machine), then 3 s for the restarted guest to be healthy.
WATCHED = {
    "timeouts": {"health": "10s", "health_check_interval": "30s"},
    "health": {"probe": {"tcp": {"port": 22}, "period": "5s", "failure_threshold": 1},
               "repair": [{"action": "restart", "wait": "3s"}, "redeploy", "recreate"]},
}


def _first(read: Callable[[], str], holds: Callable[[str], bool], timeout_s: float, what: str) -> str:
    """The first answer of `read` for which `holds`: what is asserted on is what was seen."""
    seen = [""]

    def fresh() -> bool:
        seen[0] = read()
        return holds(seen[0])

    wait_until(fresh, timeout_s, what, interval_s=0.2)
    return seen[0]


def test_a_hung_guest_is_unhealthy_then_restarted_and_running_in_describe_and_the_ui(tmp_path: Path) -> None:
    # Time scale 0 ends every boot at once; the flag is checked to reach the emulator.
    with azmc_dev(tmp_path, "--boot-seconds", "40") as dev:
        emulator = EmulatorControl(f"http://127.0.0.1:{dev.ports['--emulator-port']}")
        assert emulator.settings()["boot_seconds"] == 40
        machine = tmp_path / "vm1.json"
        machine.write_text(json.dumps({**json.loads((ROOT / "examples" / "machine.json").read_text()), **WATCHED}))
        dev.azmc("apply", "-f", str(machine), "--wait")
        describe = lambda: dev.azmc("describe", "vm1")  # noqa: E731
        ui = lambda: current_details(dev.ports["--ui-port"], dev.ports["--codec-port"], WORKFLOW)  # noqa: E731
        assert "vm_agent Ready" in describe() and "vm1 - Running" in ui()

        emulator.add_guest_fault("vm1", "hang")
        sick = _first(describe, lambda out: "Unhealthy" in out, 30, "`azmc describe` to say Unhealthy")
        assert "vm_agent Not Ready" in sick and "VM Agent is unresponsive." in sick  # which signal, and Azure's words
        assert "restart" in sick  # the repair: waiting timeouts.health before it, or under way
        shown = _first(ui, lambda details: "vm1 - Unhealthy" in details, 10, "the UI's details to say Unhealthy")
        assert "vm_agent Not Ready" in shown and "**Repair:**" in shown

        healed = _first(describe, lambda out: "healthy again after restart" in out, 30, "the machine healed")
        assert re.search(r"Phase\s+Running", healed) and "restart (step 1 of 3)" in healed
        assert "vm_agent Ready" in healed
        shown = _first(ui, lambda details: "vm1 - Running" in details, 10, "the UI's details to say Running")
        assert "healthy again after restart" in shown and "**Repair:**" not in shown
        asked = emulator.requests()["by_operation"]
        assert asked.get("virtualMachines.restart") == 1 and "virtualMachines.redeploy" not in asked
        assert asked.get("virtualMachines.put") == 1  # the same VM: restarted, never re-created
        assert emulator.guest_faults() == []  # the restart cleared the hang, as a reboot does
