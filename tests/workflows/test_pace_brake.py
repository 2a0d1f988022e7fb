"""A 429 from Azure slows the shared pace, not only the worker that met it (workers/pace_brake.py): the budget's
task queue gets a server-side rate limit of half its pace, which every worker's polls obey, until it is quiet."""

import asyncio
import dataclasses
import uuid

import pytest
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment

from models.pace import DEFAULT_PACES, Budget, budget_task_queue
from models.spec import MachineSpec
from tests.support.driver import emulator_driver
from tests.support.emulator import EmulatorHandle
from tests.workflows.conftest import INSTALLATION, TOKEN
from tests.workflows.helpers import spec_dict
from workers.pace_brake import BRAKE, PaceBrake
from workers.task_queues import describe_task_queue


async def queue_limit(env: WorkflowEnvironment, task_queue: str) -> tuple[float | None, str]:
    """The queue's rate limit set through the API (None: none) and its reason."""
    described = await describe_task_queue(env.client, task_queue, TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
                                          report_config=True)
    limit = described.config.queue_rate_limit
    return (limit.rate_limit.requests_per_second if limit.HasField("rate_limit") else None), limit.metadata.reason


async def test_a_429_halves_the_queues_pace_for_every_worker_until_quiet(
        dev_env: WorkflowEnvironment, emulator: EmulatorHandle) -> None:
    task_queue = f"brake-{uuid.uuid4()}"
    network = budget_task_queue(task_queue, Budget.NETWORK)
    brake = PaceBrake(dev_env.client, task_queue, DEFAULT_PACES, quiet_s=1.0)
    emulator.add_fault("networkInterfaces.put", status=429, code="TooManyRequests", retry_after_s=30)
    spec = MachineSpec.model_validate(spec_dict("braked", subnet_id=emulator.subnet_id))
    on_its_queue = ActivityEnvironment()
    on_its_queue.info = dataclasses.replace(on_its_queue.info, task_queue=network)
    async with emulator_driver(emulator, INSTALLATION, TOKEN) as driver:
        driver.pace.on_queue_throttled = brake.queue_throttled
        try:
            await on_its_queue.run(driver.ensure_nic, spec)
            raise AssertionError("the NIC PUT was answered 429: the activity must fail with its Retry-After")
        except ApplicationError as error:
            assert error.next_retry_delay is not None and error.next_retry_delay.total_seconds() == 30
        for _ in range(50):  # the brake is sent beside the failing call
            rate, reason = await queue_limit(dev_env, network)
            if rate is not None:
                break
            await asyncio.sleep(0.1)
    assert rate == pytest.approx(DEFAULT_PACES[Budget.NETWORK] / 2) and reason.startswith(BRAKE)
    assert (await queue_limit(dev_env, budget_task_queue(task_queue, Budget.COMPUTE_WRITES)))[0] is None
    await asyncio.sleep(1.0)
    await brake.release_quiet_brakes()
    assert (await queue_limit(dev_env, network))[0] is None
