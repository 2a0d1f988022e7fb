"""The pool is durable: a new worker resumes a rollout mid-way, and a pool that continues as new mid-rollout
finishes it with its state (exactly `replicas` machines on the new revision, nothing duplicated or lost)."""

import uuid

import pytest
from temporalio.client import Client, WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from models.pool import PoolStatus
from models.temporal_api import SET_TEMPLATE_UPDATE
from tests.support.driver import emulator_driver
from tests.support.emulator import EmulatorHandle
from tests.workflows.conftest import INSTALLATION, TOKEN
from tests.workflows.helpers import REAL_TIME, record_history
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
from workflows.pool.state import PoolState


async def _carried_states(client: Client, first_run: WorkflowHandle) -> list[PoolState]:
    """The state each run handed to the next one, first run first: each later run's input, walked back from the
    latest run by the run each one continued. (Read forward from the continue-as-new events, the chain can break on
    the time-skipping server: when a signal races a run's continue-as-new, it starts the next run but may leave the
    old run's history without the event.)"""
    states: list[PoolState] = []
    run_id = (await client.get_workflow_handle(first_run.id).describe()).run_id
    while run_id != first_run.first_execution_run_id:
        history = await client.get_workflow_handle(first_run.id, run_id=run_id).fetch_history()
        started = history.events[0].workflow_execution_started_event_attributes
        (state,) = await client.data_converter.decode(list(started.input.payloads), [PoolState])
        states.insert(0, state)
        run_id = started.continued_execution_run_id
        assert run_id, "a later run that continued no run"
    return states


# A new image version: a rollout (a tag change alone is applied in place).
IMAGE_V2 = {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server", "version": "24.04.2"}


# On a dev server: the time-skipping server routes a workflow's next tasks to the stopped worker's sticky queue
# for good, where a real server falls back to the task queue after 5 s.
@pytest.mark.e2e
async def test_a_new_worker_resumes_a_rollout_mid_way(dev_env: WorkflowEnvironment, emulator: EmulatorHandle) -> None:
    task_queue, env = f"azmc-pool-{uuid.uuid4()}", dev_env
    async with emulator_driver(emulator, INSTALLATION, TOKEN) as driver:
        async with worker_of(env.client, driver, task_queue):
            handle = await start_pool(env.client, task_queue, pool_dict(emulator.subnet_id, 3))
            first = await wait_pool(env, handle, settled(3), **REAL_TIME)
            changed: PoolStatus = await handle.execute_update(
                SET_TEMPLATE_UPDATE, {"template": template_dict(emulator.subnet_id, tags={"v": "2"}, image=IMAGE_V2)},
                result_type=PoolStatus)
            mid = await wait_pool(env, handle, lambda s: s.updated >= 1 and s.current - s.updated >= 1,
                                  **REAL_TIME)
        # The worker is gone mid-rollout; a new one (no cached state: it replays the histories) takes over.
        async with worker_of(env.client, driver, task_queue):
            done = await wait_pool(env, handle, settled(3, changed.target_revision), **REAL_TIME)
            assert done.current_revision == changed.target_revision != first.target_revision
            assert len(pool_vms(emulator)) == 3 and mid.phase == "Rolling"
            await handle.signal("delete")
            await handle.result()
            assert pool_resources(emulator) == []


async def test_a_pool_continued_as_new_mid_rollout_finishes_it(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    handle = await start_pool(env.client, stack.task_queue, pool_dict(emulator.subnet_id, 4),
                              memo={HISTORY_LIMIT_MEMO: MIN_HISTORY_LIMIT})
    first = await wait_pool(env, handle, settled(4))
    changed: PoolStatus = await handle.execute_update(
        SET_TEMPLATE_UPDATE, {"template": template_dict(emulator.subnet_id, vm_size="Standard_D4s_v3")},
        result_type=PoolStatus)
    latest = env.client.get_workflow_handle(handle.id, result_type=PoolStatus)
    seen: list[PoolStatus] = []
    done = await wait_pool(env, latest, settled(4, changed.target_revision), seen=seen)
    assert done.runs > first.runs, "never continued as new"
    mid_rollout = [state for state in await _carried_states(env.client, handle)
                   if state.revision == changed.target_revision
                   and any(m.revision == first.target_revision and not m.deleting for m in state.machines)]
    assert mid_rollout, "did not continue as new mid-rollout"
    assert all(s.available >= 4 for s in seen)
    assert len(pool_vms(emulator)) == 4 and done.current_revision == changed.target_revision
    first_run = env.client.get_workflow_handle(handle.id, run_id=handle.first_execution_run_id)
    await record_history(first_run, "pool_rollout_first_run_until_continued_as_new")
    await latest.signal("delete")
    final: PoolStatus = await latest.result()
    assert final.machines == [] and pool_resources(emulator) == []
