"""Chaos for pools: a rolling update of 10 machines while the worker is SIGKILLed 3 times (and Azure
fails some calls) ends with exactly `replicas` machines, all on the new revision, and nothing else in Azure."""

import asyncio
import time

from temporalio.client import Client
from temporalio.service import RPCError

from cli.pool_workflow import apply_pool, request_delete, set_template, status
from emulator.seed import SEED_LOCATION, SEED_RESOURCE_GROUP, seed_subnet_id
from models.naming import POOL_TAG, pool_workflow_id
from models.pool import PoolSpec, PoolStatus, RolloutPhase
from models.search_attributes import AZMC_POOL_PHASE
from models.status import Phase
from tests.e2e.machines import assert_exactly_its_own, owned
from tests.e2e.stack import STACK_CONVERTER, Stack, wait_until
from workers.settings import TASK_QUEUE

REPLICAS = 10
KILLS = 3
POOL = "chaos"


def _pool(tags: dict[str, str]) -> PoolSpec:
    return PoolSpec.model_validate({
        "name": POOL, "resource_group": SEED_RESOURCE_GROUP, "replicas": REPLICAS,
        "strategy": {"max_surge": 3, "max_unavailable": 0}, "min_ready": "0s",
        "template": {"location": SEED_LOCATION, "vm_size": "Standard_D2s_v5", "subnet_id": seed_subnet_id(),
                     # A new image version with each tag: a rollout (a tag change alone is applied in place).
                     "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server",
                               "version": f"24.04.{tags['rev']}"},
                     "ssh_public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE2eTest e2e", "tags": tags}})


async def _status(client: Client, wf_id: str, timeout_s: float = 30) -> PoolStatus:
    """The pool's status, retried while the only worker was just killed and restarts."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return await status(client, wf_id)
        except RPCError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.3)


async def _until(client: Client, wf_id: str, accept: object, timeout_s: float, what: str) -> PoolStatus:
    deadline = time.monotonic() + timeout_s
    while True:
        current = await _status(client, wf_id)
        if accept(current):
            return current
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not reached in {timeout_s:.0f}s: {current.model_dump_json(indent=1)}")
        await asyncio.sleep(0.5)


def _settled(revision: str) -> object:
    def accept(current: PoolStatus) -> bool:
        return (len(current.machines) == current.available == current.updated == REPLICAS
                and current.current_revision == revision
                and all(m.phase == Phase.RUNNING and m.revision == revision for m in current.machines))
    return accept


def _pool_vms(stack: Stack) -> list[str]:
    return sorted(r["name"] for r in stack.emulator.control.resources()
                  if r["type"].lower().endswith("virtualmachines") and (r.get("tags") or {}).get(POOL_TAG) == POOL)


async def test_sigkilled_worker_during_a_rolling_update_ends_with_replicas_on_the_new_revision(stack: Stack) -> None:
    emulator = stack.emulator.control
    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    wf_id = pool_workflow_id(SEED_RESOURCE_GROUP, POOL)
    old, new = _pool({"rev": "1"}), _pool({"rev": "2"})
    assert (await apply_pool(client, old, TASK_QUEUE)).started
    first = await _until(client, wf_id, _settled(old.revision), 60, "10 machines on the first revision")
    old_names = {m.name for m in first.machines}

    # Azure fails some creations and deletions of the new machines' resources too.
    emulator.add_fault(operation="networkInterfaces.put", name=f"{POOL}-*", status=500, times=4)
    emulator.add_fault(operation="virtualMachines.put", name=f"{POOL}-*", status=500, code="InternalExecutionError",
                       stage="operation", times=3)
    emulator.add_fault(operation="networkInterfaces.delete", name=f"{POOL}-*", status=400, code="NicInUse", times=2)
    await set_template(client, wf_id, new)
    started, kills_mid_roll = time.monotonic(), 0
    for kill in range(KILLS):
        worker = stack.worker.children[-1]
        wait_until(lambda worker=worker: "worker started" in worker.log_path.read_text(), 30, "the worker")
        await asyncio.sleep(0.5 + 0.4 * kill)
        # Read from the pool's search attributes (no worker needed: a query would wait for the new one).
        rollout = (await client.get_workflow_handle(wf_id).describe()).typed_search_attributes.get(AZMC_POOL_PHASE)
        kills_mid_roll += rollout == RolloutPhase.ROLLING
        stack.worker.kill()
        stack.worker.start()
    assert kills_mid_roll >= 2, "the kills must land while the rollout is still going"

    done = await _until(client, wf_id, _settled(new.revision), 120, "10 machines on the new revision")
    print(f"rolled out {time.monotonic() - started:.1f}s after set_template, {KILLS} worker kills")
    names = sorted(m.name for m in done.machines)
    assert len(names) == REPLICAS and not old_names & set(names)
    wait_until(lambda: _pool_vms(stack) == names, 30, "the old machines' VMs to be gone")
    for name in names:  # each machine: its VM, NIC and OS disk, wired together, tagged with the new template
        assert_exactly_its_own(emulator, new.template.machine_spec(name, POOL))
    for name in old_names:
        assert owned(emulator, name) == [], name
    vm_tags = [r["tags"] for r in emulator.resources() if r["name"] in names]
    assert all(tags.get("rev") == "2" for tags in vm_tags)

    await request_delete(client, wf_id, "chaos done")
    await client.get_workflow_handle(wf_id).result()
    assert [r["name"] for r in emulator.resources() if r["name"].startswith(f"{POOL}-")] == []
