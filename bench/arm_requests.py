"""ARM requests for one clean machine lifecycle, counted by the emulator, next to the goal and MCM.

Run: `.venv/bin/python -m bench.arm_requests`. Starts its own emulator on a free loopback port, runs
the driver activities in the order the workflow uses them, and prints the count per operation
(operation-status polls apart; the SDK's final GET after a PUT included), reads apart from
writes+deletes (Azure's budgets: 25 reads/s, 10 writes/s per subscription and region).

Two runs: requests with the latency profile `instant` (time scale 0); operation-status polls with the
profile `realistic` (Azure's durations) at a reduced time scale, the same count as at time scale 1
because the emulator scales its Retry-After hints with its durations. The VM delete is force-deleted (every
disk goes with it); a third run with force deletion off (AzureConfig.force_delete_vms=False: forceDeletion=false) shows
the polls it saves. Writes bench/results/arm_requests.json.
"""

import asyncio
import json
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

from temporalio.testing import ActivityEnvironment

from activities.config import AzureConfig
from activities.driver import AzureDriver
from bench.results_file import row, write_results
from bench.stack import emulator_alone
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, SEED_SUBSCRIPTION, seed_subnet_id
from models.activity_io import DataDiskDeleteOptionInput, DeleteVmInput, EnsureVmInput, MachineRef
from models.spec import MachineSpec

GOAL = 7  # issue 38: create -> Running -> delete
DRAIN = "delete: drain (power_off), counted apart"
HEALTH = "health: find_vm, counted apart"
APART = (DRAIN, HEALTH)  # steps shown beside the lifecycle's count, not in it
LIMIT = 13  # issue 13: at most MCM's count
POLL_LIMIT = 4  # issue 38 (it was 15)
POLL_TIME_SCALE = 0.02  # realistic durations and hints at 1/50: a lifecycle's operations take ~2.5 s
MCM = 13  # GET VM, image, agreement, subnet, NIC; PUT NIC, PUT VM, GET VM; HEAD rg, GET VM, DELETE VM, 2 final GETs


def control(url: str, path: str, method: str = "GET", body: Any = None, timeout_s: float = 10) -> Any:
    """The emulator's control API: `body` sent as JSON (a POST without one sends `{}`)."""
    if body is None and method == "POST":
        body = {}
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, method=method, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout_s) as response:
        return json.loads(response.read() or b"null")


def counted(snapshot: dict[str, Any]) -> Counter[str]:
    """The emulator's per-operation counts; its `operations.get` (status polls) renamed as the driver names them."""
    return Counter({("operations.poll" if op.startswith("operations.") else op): int(n)
                    for op, n in snapshot["by_operation"].items()})


# The shared status reads (activities/reading/vm_statuses.py) stand where the operation polls stood: the lifecycle
# lists no VMs otherwise, so every `virtualMachines.list` here is one; a fleet shares each of them.
SHARED_READ = "virtualMachines.list"


def is_poll(op: str) -> bool:
    return op in ("operations.poll", SHARED_READ)


def is_read(op: str) -> bool:
    """GETs, lists and Resource Graph queries (a POST that only reads); polls are counted apart."""
    verb = op.rsplit(".", 1)[-1]
    return verb in ("get", "list", "query", "instanceView")


def bench_spec(data_disks: int = 1) -> MachineSpec:
    return MachineSpec(
        name="bench-vm1", resource_group=SEED_RESOURCE_GROUP, location=SEED_LOCATION,
        vm_sizes=["Standard_D2s_v5"],
        image={"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
        subnet_id=seed_subnet_id(), ssh_public_key="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIbench bench@azmc",
        data_disks=[{"lun": lun, "size_gb": 32} for lun in range(data_disks)],
    )


async def expect_nothing_left(env: ActivityEnvironment, driver: AzureDriver, spec: MachineSpec) -> None:
    left = await env.run(driver.read_inventory, spec)
    if not left.is_empty or left.not_ours:
        raise RuntimeError(f"expected nothing left, found {left.summary()}")


def lifecycle_steps(driver: AzureDriver, spec: MachineSpec) -> list[tuple[str, Callable[[], Awaitable[Any]]]]:
    """(label, step) of one machine's driver activities from create to deleted, in its workflow's order (the health
    check and the drain labelled apart); the machine's spec says whether it has data disks."""
    env = ActivityEnvironment()
    machine = MachineRef(resource_group=spec.resource_group, name=spec.name)
    nic_id: list[str] = []

    async def ensure_nic() -> str:
        nic_id.append(await env.run(driver.ensure_nic, spec))
        return nic_id[-1]

    return [
        ("create: find_vm (no VM; its data disks)", lambda: env.run(driver.find_vm, spec)),
        ("create: ensure_nic", ensure_nic),
        ("create: ensure_vm", lambda: env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id[-1],
                                                                             vm_absent=True))),
        # The PUT's answer has no instance view: one read for the guest's VM agent before the machine is Running.
        ("create: find_vm (the guest's VM agent)", lambda: env.run(driver.find_vm, spec)),
        # A health check every timeouts.health_check_interval (6 h): not part of create -> Running -> delete.
        (HEALTH, lambda: env.run(driver.find_vm, spec)),
        ("delete: read_inventory", lambda: env.run(driver.read_inventory, spec)),
        # `delete` drains a running VM first; the count leaves the drain out, shown apart here.
        (DRAIN, lambda: env.run(driver.power_off, machine)),
        # Data disks are created with deleteOption Detach (a recovery keeps them); `delete` sets Delete first
        # (a machine without data disks skips it, as workflows/machine/deletion.py does).
        *([("delete: data disks deleteOption Delete", lambda: env.run(
            driver.set_data_disk_delete_option, DataDiskDeleteOptionInput(machine=machine, delete_option="Delete")))]
          if spec.data_disks else []),
        ("delete: delete_vm (cascade)", lambda: env.run(driver.delete_vm, DeleteVmInput(machine=machine))),
        ("delete: verify (nothing left)", lambda: expect_nothing_left(env, driver, spec)),
    ]


async def lifecycle(url: str, force_delete_vms: bool = True, data_disks: int = 1) -> list[tuple[str, Counter[str]]]:
    spec = bench_spec(data_disks)
    driver = await AzureDriver.open(AzureConfig(installation_id="bench", subscription_id=SEED_SUBSCRIPTION,
                                                endpoint=url, emulator_token="bench-token",
                                                force_delete_vms=force_delete_vms))
    steps = lifecycle_steps(driver, spec)
    results = []
    control(url, "/_emulator/reset", "POST")
    try:
        for label, step in steps:
            before = counted(control(url, "/_emulator/requests"))
            await step()
            after = counted(control(url, "/_emulator/requests"))
            results.append((label, after - before))
        leftovers = [r for r in control(url, "/_emulator/resources")
                     if "bench-vm1" in json.dumps(r)]
        if leftovers:
            raise RuntimeError(f"lifecycle left resources behind: {leftovers}")
        [deletion] = control(url, "/_emulator/requests")["vm_deletions"]
        if deletion["forced"] != force_delete_vms:
            raise RuntimeError(f"the VM delete was not what was asked (force {force_delete_vms}): {deletion}")
        # Cross-check: the driver's own count (every request it sent) agrees with the emulator's.
        ours = Counter(driver.request_counts())
        theirs = sum((c for _, c in results), Counter())
        if ours != theirs:
            raise RuntimeError(f"driver counted {dict(ours)}, emulator counted {dict(theirs)}")
    finally:
        await driver.close()
    return results


def requests_of(counts: Counter[str]) -> int:
    return sum(n for op, n in counts.items() if not is_poll(op))


def lifecycle_polls(paced: list[tuple[str, Counter[str]]]) -> int:
    return sum(polls_of(c) for label, c in paced if label not in APART)


def polls_of(counts: Counter[str]) -> int:
    return sum(n for op, n in counts.items() if is_poll(op))


def report(results: list[tuple[str, Counter[str]]], paced: list[tuple[str, Counter[str]]],
           unforced: list[tuple[str, Counter[str]]], diskless: list[tuple[str, Counter[str]]]) -> list[dict[str, Any]]:
    every = sum((c for label, c in results if label not in APART), Counter())
    total = requests_of(every)
    reads = sum(n for op, n in every.items() if is_read(op) and not is_poll(op))
    polls = lifecycle_polls(paced)
    polls_unforced = lifecycle_polls(unforced)
    if requests_of(sum((c for label, c in unforced if label not in APART), Counter())) != total:
        raise RuntimeError("force deletion changed the lifecycle's requests; it only shortens the VM delete")
    drain = sum((c for label, c in results if label == DRAIN), Counter())
    drain_polls = sum(polls_of(c) for label, c in paced if label == DRAIN)
    print("ARM requests for create (its guest's VM agent read once) -> Running -> delete of one machine")
    print("with one data disk")
    print("(emulator's count; waits apart: operation-status polls and the shared status reads that replace them;")
    print("final GETs after PUT included)\n")
    for (label, counts), (_, paced_counts) in zip(results, paced, strict=True):
        shown = {op: n for op, n in counts.items() if not is_poll(op)}
        detail = ", ".join(f"{op} {n}" for op, n in sorted(shown.items()))
        print(f"  {label:42s} {sum(shown.values()):3d}  polls {polls_of(paced_counts):2d}   {detail}")
    print(f"\n  azmc total: {total} requests ({reads} reads, {total - reads} writes+deletes), {polls} polls and "
          f"shared status reads at Azure's pace (latency profile realistic)")
    print(f"  with the drain `delete` does by default: +{requests_of(drain)} request(s), +{drain_polls} polls")
    print(f"  force deletion off (forceDeletion=false): {polls_unforced} polls; force deletion saves "
          f"{polls_unforced - polls}")
    bare = requests_of(sum((c for label, c in diskless if label not in APART), Counter()))
    print(f"  without the data disk: {bare} requests (its tag PATCH and deleteOption PATCH are the data's own)")
    print(f"  goal:       at most {GOAL}; waits at most {POLL_LIMIT}")
    print(f"  MCM Azure:  {MCM}   (azmc / MCM  = {total / MCM:.2f})")
    return [
        row("ARM requests per clean lifecycle", total, "requests", f"<= {GOAL}", f"MCM {MCM}",
            "create (its VM agent read once) -> Running -> delete, one data disk; final GETs counted, waits apart"),
        row("ARM requests per clean lifecycle, no data disk", bare, "requests", f"<= {GOAL}", f"MCM {MCM}",
            "the same without a data disk: NIC PUT, VM PUT, delete; the two lists, the guest's and delete's reads"),
        row("ARM reads per clean lifecycle", reads, "requests", None, None, "GETs and lists"),
        row("ARM writes+deletes per clean lifecycle", total - reads, "requests", None, None,
            "PUT, PATCH, DELETE: the smaller budget (10/s per subscription and region)"),
        row("waits per clean lifecycle (polls + shared status reads)", polls, "reads", f"<= {POLL_LIMIT}", None,
            f"one machine alone: each shared read serves it only; latency profile realistic, time scale "
            f"{POLL_TIME_SCALE} (same count as at 1: hints scale too)"),
        row("operation-status polls saved by force deletion", polls_unforced - polls, "polls", None, None,
            f"{polls_unforced} with forceDeletion=false (force_delete_vms off), {polls} forced: the VM "
            "delete skips the guest's shutdown (realistic 15 s against 30 s); requests unchanged"),
        row("ARM requests + polls of delete's drain (power_off)", requests_of(drain) + drain_polls, "requests",
            None, None, f"{requests_of(drain)} request(s) + {drain_polls} polls, beside the lifecycle's count"),
    ]


def run(profile: str, time_scale: float, force_delete_vms: bool = True,
        data_disks: int = 1) -> list[tuple[str, Counter[str]]]:
    with emulator_alone(("--time-scale", str(time_scale), "--latency-profile", profile), "arm-requests") as url:
        return asyncio.run(lifecycle(url, force_delete_vms, data_disks))


def main() -> None:
    results = run("instant", 0)
    paced = run("realistic", POLL_TIME_SCALE)
    unforced = run("realistic", POLL_TIME_SCALE, force_delete_vms=False)
    diskless = run("instant", 0, data_disks=0)
    rows = report(results, paced, unforced, diskless)
    print(f"\n  written: {write_results('arm_requests', rows)}")


if __name__ == "__main__":
    main()
