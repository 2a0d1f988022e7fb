"""Scenarios that need exact control of time and failures, on an in-memory Azure (see fake_azure.py).

Everything else runs the real driver against the emulator (test_creation_saga_and_health.py).
"""

import logging
from datetime import timedelta

import pytest
from temporalio import activity
from temporalio.client import WorkflowExecutionStatus
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from models.activity_io import ActivityName
from models.errors import ErrorType
from models.status import Phase
from tests.workflows.fake_azure import FakeAzure
from tests.workflows.helpers import in_phase, lifecycle_worker, spec_dict, start_machine, wait_for

pytestmark = pytest.mark.shared_server  # workers on task queues of their own, stopped at the end


async def test_capacity_failure_of_the_only_offering_waits_until_its_refusal_ends(
        workflow_env: WorkflowEnvironment, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="temporalio.workflow")
    azure = FakeAzure()
    azure.fail(ActivityName.ENSURE_VM, ErrorType.CAPACITY_EXHAUSTED, times=1, message="AllocationFailed")
    env = workflow_env
    async with lifecycle_worker(env.client, azure.activities()) as tq:
        handle = await start_machine(env.client, tq, spec_dict(timeouts={"creation": "2h"}))
        backing_off = await wait_for(env, handle, in_phase(Phase.CRASH_LOOP_BACK_OFF))
        running = await wait_for(env, handle, in_phase(Phase.RUNNING), step=timedelta(minutes=1))
        assert running.attempts == 2
        assert backing_off.next_retry_at is not None
        await handle.signal("delete", {"reason": "test"})
        final = await handle.result()
    assert final.phase == Phase.DELETED
    assert azure.empty
    # The one offering was refused (AllocationFailed: 1 h, models/refusals.py): the second attempt started
    # when that refusal ended (within the creation timeout, here 2 h).
    when = {op.description: op.updated_at for op in running.recent_operations}
    gap = when["attempt 2: reading what exists"] - when["attempt 1 failed; compensating"]
    assert timedelta(hours=1) <= gap < timedelta(hours=1, minutes=2), gap
    # Every workflow log line names the machine.
    # (The shared memory of refused offerings logs too, naming its subscription and location.)
    lines = [line for r in caplog.records if r.name == "temporalio.workflow"
             if not (line := r.getMessage()).startswith("[offerings ")]
    assert len(lines) > 10
    assert all("[machine azmc-demo/vm1]" in line for line in lines), lines


async def test_creation_timeout_fails_cleans_and_waits_for_reconcile(workflow_env: WorkflowEnvironment) -> None:
    azure = FakeAzure()
    azure.fail(ActivityName.ENSURE_VM, ErrorType.TRANSIENT, times=-1, message="boom")
    spec = spec_dict(timeouts={"creation": "2m"})
    env = workflow_env
    async with lifecycle_worker(env.client, azure.activities()) as tq:
        handle = await start_machine(env.client, tq, spec)
        failed = await wait_for(env, handle, in_phase(Phase.FAILED), step=timedelta(seconds=10))
        failed = await wait_for(env, handle, lambda s: "nothing left" in (s.last_operation.description if
                                                                         s.last_operation else ""))
        assert azure.empty
        desc = await handle.describe()
        assert desc.status == WorkflowExecutionStatus.RUNNING
        azure._failures.clear()
        await handle.signal("reconcile")
        running = await wait_for(env, handle, in_phase(Phase.RUNNING))
        assert running.attempts == 1
        await handle.signal("delete")
        final = await handle.result()
    assert failed.attempts >= 3
    assert final.phase == Phase.DELETED and azure.empty


async def test_reconcile_cuts_a_capacity_backoff_short(workflow_env: WorkflowEnvironment) -> None:
    """An operator who knows capacity is back sends `reconcile` instead of waiting out 10 minutes."""
    azure = FakeAzure()
    azure.fail(ActivityName.ENSURE_VM, ErrorType.CAPACITY_EXHAUSTED, times=1, message="AllocationFailed")
    env = workflow_env
    async with lifecycle_worker(env.client, azure.activities()) as tq:
        handle = await start_machine(env.client, tq, spec_dict())
        backing_off = await wait_for(env, handle, lambda s: s.phase == Phase.CRASH_LOOP_BACK_OFF
                                     and s.next_retry_at is not None)
        await handle.signal("reconcile")
        running = await wait_for(env, handle, in_phase(Phase.RUNNING))
        await handle.signal("delete")
        final = await handle.result()
    assert running.attempts == 2
    assert final.phase == Phase.DELETED and azure.empty
    # The error reads "<type>: <Azure's words>", the type once.
    assert backing_off.last_error == "CapacityExhausted: AllocationFailed"
    # The second attempt started long before the 10-minute capacity backoff would have ended.
    started = next(op.updated_at for op in running.recent_operations if op.description.startswith("attempt 2"))
    assert backing_off.next_retry_at is not None
    assert started < backing_off.next_retry_at - timedelta(minutes=9), (started, backing_off.next_retry_at)


async def test_a_memory_that_does_not_answer_never_stops_a_machine(workflow_env: WorkflowEnvironment) -> None:
    """The shared memory of refused offerings saves attempts; when it cannot be asked, creation goes on."""
    azure = FakeAzure()

    @activity.defn(name=ActivityName.ASK_OFFERINGS.value)
    async def ask_offerings(question: object) -> None:
        raise ApplicationError("memory unreachable", type=ErrorType.TRANSIENT, non_retryable=True)

    activities = [a for a in azure.activities() if a.__name__ != "ask_offerings"] + [ask_offerings]
    env = workflow_env
    async with lifecycle_worker(env.client, activities) as tq:
        handle = await start_machine(env.client, tq, spec_dict())
        running = await wait_for(env, handle, in_phase(Phase.RUNNING))
        assert running.attempts == 1 and running.offering is not None
        await handle.signal("delete")
        assert (await handle.result()).phase == Phase.DELETED
