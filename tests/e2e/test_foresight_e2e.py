"""Issue 43's proof on `azmc dev`, as an operator sees it: Azure annotates a machine's host as degrading and schedules
its redeploy; the fleet sweep reads it, and the machine (spec `foresight`) redeploys itself before the deadline,
keeping its data disk, in `azmc describe` and in the current details the Temporal UI shows. Then Azure schedules a
reboot: the machine is in Maintenance through it, sweep after sweep, and no repair starts. Last, Azure announces the
eviction of one Spot machine of a pool of 5: its replacement runs before the eviction lands (`azmc pool describe`)."""

import json
from pathlib import Path
from typing import Any

from cli.emulator_client import EmulatorControl
from tests.e2e.machines import example_spec
from tests.e2e.stack import azmc_dev, wait_until
from tests.e2e.ui_details import current_details

WORKFLOW = "machine/azmc-demo/vm1"


def test_a_degraded_host_is_redeployed_before_its_deadline_with_its_data_disk(tmp_path: Path) -> None:
    with azmc_dev(tmp_path) as dev:
        emulator = EmulatorControl(f"http://127.0.0.1:{dev.ports['--emulator-port']}")
        machine = tmp_path / "vm1.json"
        example = example_spec("machine.json")
        machine.write_text(json.dumps({**example, "foresight": True, "data_disks": [{"lun": 0, "size_gb": 8}]}))
        dev.azmc("apply", "-f", str(machine), "--wait")
        before = {r["name"]: r for r in emulator.resources("vm1")}
        disk = next(name for name in before if "data" in name)

        # At time scale 0 the deadline never passes by itself: whatever moves the VM is azmc.
        emulator._call("POST", "degrade-host", {"name": "vm1", "not_before_seconds": 3600})
        dev.azmc("schedule", "ensure", "--sweep-interval", "2s")
        seen = [""]

        def redeployed() -> bool:
            seen[0] = dev.azmc("describe", "vm1")
            return "redeployed ahead of Azure" in seen[0]

        wait_until(redeployed, 90, "`azmc describe` to show the redeploy ahead of Azure", interval_s=0.5)
        assert "Maintenance" in seen[0] and ("Degraded" in seen[0] or "Redeploy" in seen[0])
        after = {r["name"]: r for r in emulator.resources("vm1")}
        assert after["vm1"]["host"] != before["vm1"]["host"] and after["vm1"]["vmId"] == before["vm1"]["vmId"]
        assert after[disk]["uniqueId"] == before[disk]["uniqueId"]  # the same data disk
        (event,) = emulator._call("GET", "scheduled-events")["value"]
        assert (event["EventStatus"], event["outcome"]) == ("Completed", "approved by redeploy")
        assert emulator.requests()["by_operation"].get("virtualMachines.redeploy") == 1
        # The UI reads the details the server stored with a completed workflow task, `azmc describe` the workflow's
        # own answer: under load the UI was seen a moment behind (the fresh-clone run of 2026-12-05).
        wait_until(lambda: _ui_shows(dev.ports, "**Maintenance:**", "redeployed ahead of Azure"), 30,
                   "the UI's current details to show the redeploy ahead of Azure", interval_s=0.5)

        # The same stack: a scheduled reboot pauses the health checks, and the reboot itself starts no repair.
        reboot = emulator._call("POST", "scheduled-events", {"name": "vm1", "event_type": "Reboot",
                                                             "duration_seconds": 600})
        wait_until(lambda: "health checks paused" in dev.azmc("describe", "vm1"), 60,
                   "`azmc describe` to show the health checks paused for the reboot", interval_s=0.5)
        emulator._call("POST", f"scheduled-events/{reboot['EventId']}/start")  # the guest reboots: agent Not Ready
        sweeps = _requests(emulator, "resourceGraph.query")
        wait_until(lambda: _requests(emulator, "resourceGraph.query") >= sweeps + 3, 60,
                   "three sweeps during the reboot", interval_s=0.5)
        assert _phase(dev.azmc("describe", "vm1")) == "Maintenance"  # not Unhealthy: no drift reconcile was sent
        emulator._call("POST", f"scheduled-events/{reboot['EventId']}/complete")
        wait_until(lambda: "Azure reports it over" in dev.azmc("describe", "vm1"), 60,
                   "`azmc describe` to show the reboot over", interval_s=0.5)
        assert _requests(emulator, "virtualMachines.restart") == 0
        assert _requests(emulator, "virtualMachines.redeploy") == 1  # the one ahead of the degraded host only

        # The same stack: a pool of 5 Spot machines; Azure announces one's eviction (at time scale 0 it never lands
        # by itself), and the pool runs its replacement before letting the doomed machine go.
        pool = tmp_path / "spot.json"
        template = {**example_spec("machine.json", "name", "resource_group", "pool"), "foresight": True,
                    "priority": "Spot", "spot": {"eviction_policy": "Delete"}}
        pool.write_text(json.dumps({"kind": "MachinePool", "name": "spot", "resource_group": "azmc-demo",
                                    "replicas": 5, "min_ready": "0s", "template": template}))
        dev.azmc("apply", "-f", str(pool))
        status: dict[str, Any] = {}

        def pool_is(accept: Any) -> bool:
            status.update(json.loads(dev.azmc("pool", "describe", "spot", "--json")))
            return bool(accept(status))

        wait_until(lambda: pool_is(lambda s: _running(s) == 5), 120, "the Spot pool's 5 machines Running", 0.5)
        doomed = sorted(m["name"] for m in status["machines"])[0]
        event = emulator._call("POST", "scheduled-events", {"name": doomed, "event_type": "Preempt"})
        wait_until(lambda: pool_is(lambda s: doomed not in {m["name"] for m in s["machines"]} and _running(s) == 5),
                   120, f"{doomed} replaced and let go before its eviction", 0.5)
        told = [op["description"] for op in status["recent_operations"]]
        announced = told.index(f"{doomed}: Azure announced its Spot eviction ({event['EventId']}): its replacement "
                               "starts now")
        created = next(i for i, said in enumerate(told) if i > announced and said.startswith("creating "))
        assert created < told.index(f"{doomed}: Spot eviction announced: replaced")  # the replacement first
        # Let go before the eviction landed (the event never started): its VM and its event are gone with it.
        assert doomed not in {r["name"] for r in emulator.resources(doomed)}
        assert [e for e in emulator._call("GET", "scheduled-events")["value"] if doomed in json.dumps(e)] == []


def _ui_shows(ports: dict[str, int], *texts: str) -> bool:
    details = current_details(ports["--ui-port"], ports["--codec-port"], WORKFLOW)
    return all(text in details for text in texts)


def _running(pool: dict[str, Any]) -> int:
    return sum(1 for m in pool["machines"] if m["phase"] == "Running" and not m.get("deleting"))


def _requests(emulator: EmulatorControl, operation: str) -> int:
    return int(emulator.requests()["by_operation"].get(operation, 0))


def _phase(described: str) -> str:
    """The Phase row of `azmc describe`'s panel."""
    rows = ([word for word in line.split() if word not in "│┃|"] for line in described.splitlines())
    return next(row[1] for row in rows if row[:1] == ["Phase"] and len(row) > 1)
