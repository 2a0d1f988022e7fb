"""Issue 11 end to end on `azmc dev`: 10 machines applied at once (`azmc apply -f ... --wait`) while zone 1
has no capacity all end Running in the other zones, with nothing of a refused attempt left behind; and the
shared memory's claims keep the failed VM PUTs in zone 1 (the emulator's count) to at most one."""

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from cli.emulator_client import EmulatorControl
from tests.e2e.machines import example_spec
from tests.e2e.stack import ROOT, azmc_dev

MACHINES = 10
ZONES = ["1", "2", "3"]
NAMES = [f"zonal-{index:02d}" for index in range(MACHINES)]


@dataclass
class Outcome:
    outputs: list[str]
    return_codes: list[int]
    resources: list[dict[str, Any]]
    refused_in_zone_1: int
    failed: dict[str, int]


@pytest.fixture(scope="module")
def zone_1_out(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Outcome]:
    tmp_path = tmp_path_factory.mktemp("capacity")
    spec = example_spec("machine.yaml", "vm_size", "pool")
    for name in NAMES:
        body = {**spec, "name": name, "vm_sizes": ["Standard_D2s_v5"], "zones": ZONES}
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(body))
    with azmc_dev(tmp_path) as dev:
        emulator = EmulatorControl(f"http://127.0.0.1:{dev.ports['--emulator-port']}")
        zone_out = emulator.make_unavailable(zone="1")
        applying = [subprocess.Popen([sys.executable, "-m", "cli", "apply", "-f", str(tmp_path / f"{name}.yaml"),
                                      "--wait"], cwd=ROOT, env=dev.env(), stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
                    for name in NAMES]  # fmt: skip
        outputs = [process.communicate(timeout=180)[0] for process in applying]
        yield Outcome(outputs, [process.returncode for process in applying], emulator.resources("zonal-"),
                      next(e["hits"] for e in emulator.capacity() if e["id"] == zone_out),
                      emulator.requests()["failed_by_operation"])


def test_every_machine_runs_in_another_zone_with_nothing_of_a_refusal_left(zone_1_out: Outcome) -> None:
    assert zone_1_out.return_codes == [0] * MACHINES, zone_1_out.outputs
    by_type: dict[str, list[dict[str, Any]]] = {}
    for resource in zone_1_out.resources:
        by_type.setdefault(resource["type"].rsplit("/", 1)[1], []).append(resource)
    vms = {vm["name"]: vm for vm in by_type["virtualMachines"]}
    assert sorted(vms) == NAMES
    assert all(vm["provisioningState"] == "Succeeded" and vm["powerState"] == "running" for vm in vms.values())
    assert {vm["zones"][0] for vm in vms.values()} <= {"2", "3"}
    # A refused attempt was compensated: one NIC per machine, each on its machine's VM.
    assert sorted(nic["attachments"]["virtualMachine"].rsplit("/", 1)[1] for nic in by_type["networkInterfaces"]) \
        == NAMES
    assert zone_1_out.refused_in_zone_1 >= 1  # zone 1 was tried: the machines fell back, not avoided it
    assert zone_1_out.failed.get("virtualMachines.put", 0) == zone_1_out.refused_in_zone_1


def test_at_most_one_vm_put_fails_in_the_zone_without_capacity(zone_1_out: Outcome) -> None:
    assert zone_1_out.refused_in_zone_1 <= 1, f"{zone_1_out.refused_in_zone_1} VM PUTs failed in zone 1"
