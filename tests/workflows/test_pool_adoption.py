"""A pool applied again after its workflow ended adopts the machines its earlier life started, and no other: counted
against replicas, rolled when of another template, never a closed one, never another installation's or a client's;
and no life of a pool names a machine as an earlier life did."""

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from models.naming import OWNER_TAG, workflow_id
from models.pool import PoolStatus
from models.search_attributes import AZMC_MACHINE, AZMC_POOL, AZMC_RESOURCE_GROUP
from models.temporal_api import MACHINE_PHASE_SIGNAL, SCALE_UPDATE, WORKFLOW_TYPE
from tests.support.driver import emulator_driver
from tests.support.emulator import EmulatorHandle
from tests.workflows.conftest import TOKEN
from tests.workflows.helpers import RESOURCE_GROUP, spec_dict
from tests.workflows.pools import (
    pool_dict,
    pool_resources,
    pool_vms,
    settled,
    start_pool,
    template_dict,
    wait_pool,
    worker_of,
)
from tests.workflows.stack import Stack
from workflows.continuation import HISTORY_LIMIT_MEMO
from workflows.policies import MIN_HISTORY_LIMIT

IMAGE_V2 = {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server", "version": "24.04.2"}


def _names(status: PoolStatus) -> set[str]:
    return {m.name for m in status.machines}


async def _earlier_life(stack: Stack, spec: dict[str, Any], **kwargs: Any) -> tuple[WorkflowHandle, set[str]]:
    """A pool started and settled: its handle and its machines' names."""
    handle = await start_pool(stack.env.client, stack.task_queue, spec, **kwargs)
    return handle, _names(await wait_pool(stack.env, handle, settled(spec["replicas"])))


async def _delete(stack: Stack, pool_id: str) -> None:
    """Delete the pool; it leaves nothing of its own in Azure."""
    handle = stack.env.client.get_workflow_handle(pool_id, result_type=PoolStatus)
    await handle.signal("delete", {"reason": "test done"})
    await handle.result()
    assert pool_resources(stack.emulator) == []


async def test_a_pool_applied_again_after_its_workflow_was_terminated_adopts_its_machines(stack: Stack) -> None:
    env, emulator, client = stack.env, stack.emulator, stack.env.client
    spec = pool_dict(emulator.subnet_id, 2)
    first, _ = await _earlier_life(stack, spec, memo={HISTORY_LIMIT_MEMO: MIN_HISTORY_LIMIT})
    # The earlier life continued as new on its way (its machines were started by runs before its last one).
    await first.execute_update(SCALE_UPDATE, {"replicas": 0})
    await wait_pool(env, first, settled(0))
    await first.execute_update(SCALE_UPDATE, {"replicas": 2})
    before = await wait_pool(env, first, lambda s: settled(2)(s) and s.runs > 1)
    await first.terminate(reason="an operator, by hand")

    again = await start_pool(client, stack.task_queue, spec)
    after = await wait_pool(env, again, settled(2))
    assert _names(after) == _names(before) and pool_vms(emulator) == sorted(_names(before))
    adopted = [op.description for op in after.recent_operations if op.kind == "adopt"]
    assert len(adopted) == 1 and "counted as its own" in adopted[0] and "another template" not in adopted[0]
    assert after.updated == 2 and after.target_revision == before.target_revision

    # Scaling counts them: one more is one more VM, one less deletes an adopted one.
    await again.execute_update(SCALE_UPDATE, {"replicas": 3})
    three = await wait_pool(env, again, settled(3))
    assert len(pool_vms(emulator)) == 3 and _names(before) < _names(three)
    await again.execute_update(SCALE_UPDATE, {"replicas": 1})
    one = await wait_pool(env, again, settled(1))
    assert len(pool_vms(emulator)) == 1 and _names(one) <= _names(three)
    await _delete(stack, again.id)


async def test_a_pool_applied_again_never_names_a_machine_as_an_earlier_life_did(stack: Stack) -> None:
    spec = pool_dict(stack.emulator.subnet_id, 2)
    first, earlier = await _earlier_life(stack, spec)
    await _delete(stack, first.id)
    again, later = await _earlier_life(stack, spec)
    assert not earlier & later, "a new life reused an earlier life's machine names (and workflow ids)"
    await _delete(stack, again.id)


async def test_adopted_machines_of_an_older_template_are_rolled_or_updated_in_place(stack: Stack) -> None:
    env, emulator, client = stack.env, stack.emulator, stack.env.client
    first, old = await _earlier_life(stack, pool_dict(emulator.subnet_id, 2))
    await first.terminate()

    # Another tag only: taken in place by the adopted machines, no VM replaced.
    retagged = pool_dict(emulator.subnet_id, 2, template=template_dict(emulator.subnet_id, tags={"team": "b"}))
    second = await start_pool(client, stack.task_queue, retagged)
    kept = await wait_pool(env, second, settled(2))
    assert _names(kept) == old and all(m.revision == kept.target_revision for m in kept.machines)
    assert all((vm.get("tags") or {}).get("team") == "b" for vm in emulator.resources("virtualMachines"))
    await second.terminate()

    # Another image: the adopted machines are of an older revision, and the rollout replaces them.
    reimaged = pool_dict(emulator.subnet_id, 2, template=template_dict(emulator.subnet_id, image=IMAGE_V2))
    third = await start_pool(client, stack.task_queue, reimaged)
    rolled = await wait_pool(env, third, lambda s: settled(2, s.target_revision)(s) and not _names(s) & old)
    assert pool_vms(emulator) == sorted(_names(rolled))
    adopted = [op.description for op in rolled.recent_operations if op.kind == "adopt"]
    assert adopted and "2 of another template, rolled" in adopted[0], adopted
    await _delete(stack, third.id)


async def test_a_closed_machine_is_not_adopted(stack: Stack) -> None:
    env, emulator, client = stack.env, stack.emulator, stack.env.client
    spec = pool_dict(emulator.subnet_id, 2)
    first, earlier = await _earlier_life(stack, spec)
    gone, alive = sorted(earlier)
    await first.terminate()
    machine = client.get_workflow_handle(workflow_id(RESOURCE_GROUP, gone))
    await machine.terminate(reason="by hand")

    again = await start_pool(client, stack.task_queue, spec)
    after = await wait_pool(env, again, settled(2))
    assert alive in _names(after) and gone not in _names(after)
    assert (await machine.describe()).status == WorkflowExecutionStatus.TERMINATED  # not started again either
    await _delete(stack, again.id)  # what the terminated machine left goes with the pool


@asynccontextmanager
async def _other_installation(client: Client, emulator: EmulatorHandle) -> AsyncIterator[str]:
    """A worker of another azmc installation (its own installation id) on its own task queue, as in production."""
    task_queue = f"azmc-other-{uuid.uuid4()}"
    async with emulator_driver(emulator, "other-installation", TOKEN) as driver, worker_of(client, driver, task_queue):
        yield task_queue


async def _start_machine_by_hand(client: Client, task_queue: str, subnet_id: str, name: str) -> Any:
    """A machine that says it is of pool `web` (its spec and its AzmcPool), started by a client, not by the pool."""
    attributes = TypedSearchAttributes([SearchAttributePair(AZMC_MACHINE, name),
                                        SearchAttributePair(AZMC_RESOURCE_GROUP, RESOURCE_GROUP),
                                        SearchAttributePair(AZMC_POOL, "web")])
    return await client.start_workflow(WORKFLOW_TYPE, spec_dict(name, subnet_id, pool="web", data_disks=[]),
                                       id=workflow_id(RESOURCE_GROUP, name), task_queue=task_queue,
                                       search_attributes=attributes)


async def test_another_installations_or_a_clients_machine_is_never_adopted(stack: Stack) -> None:
    env, emulator, client = stack.env, stack.emulator, stack.env.client
    spec = pool_dict(emulator.subnet_id, 1)
    async with _other_installation(client, emulator) as other_queue:
        theirs = await start_pool(client, other_queue, spec)
        foreign = _names(await wait_pool(env, theirs, settled(1)))
        await theirs.terminate()
        by_hand = await _start_machine_by_hand(client, stack.task_queue, emulator.subnet_id, "web-zzzzz")

        ours = await start_pool(client, stack.task_queue, {**spec, "replicas": 2})
        after = await wait_pool(env, ours, settled(2))
        assert not _names(after) & (foreign | {"web-zzzzz"})
        refused = " ".join(op.description for op in after.recent_operations if op.kind == "adopt")
        assert "web-zzzzz: started by a client" in refused and "another installation's" in refused, refused
        # Their names in notices (a machine too new for the listing tells its phase) are checked the same way.
        for name in sorted(foreign | {"web-zzzzz"}):
            await ours.signal(MACHINE_PHASE_SIGNAL, {"name": name, "phase": "Running"})
        heard = await wait_pool(env, ours, lambda s: len(s.ignored_notices) == len(foreign) + 1)
        ignored = " ".join(op.description for op in heard.ignored_notices)
        assert "web-zzzzz: started by a client" in ignored and "another installation's" in ignored, ignored
        assert _names(heard) == _names(after)
        owners = {vm["name"]: vm["tags"][OWNER_TAG] for vm in emulator.resources("virtualMachines")}
        assert all(owners[name].startswith("other-installation/") for name in foreign)
        await ours.signal("delete")
        await ours.result()
        # The pool deleted its own machines and left the others running.
        assert sorted(pool_vms(emulator)) == sorted(foreign | {"web-zzzzz"})
        assert (await by_hand.describe()).status == WorkflowExecutionStatus.RUNNING
