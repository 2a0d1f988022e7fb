"""ARM's budgets hold for every request a worker sends, reads and operation-status polls included
(activities/arm_pace.py): at its pace a burst of reads meets no 429, and a 429 that still comes is waited out
(Retry-After) and the read sent again, so the caller sees an answer, not a failure."""

import asyncio
from typing import Any

from activities.clients import build_clients
from activities.config import AzureConfig
from emulator.seed import SEED_RESOURCE_GROUP
from tests.activities.conftest import INSTALLATION, TOKEN
from tests.emulator.limit_steps import azure_limits

READS = 12
# ARM's reads: 10, then 5 a second (Azure's: 250, then 25 a second); the installation's pace 4 a second.
BUDGET = {"capacity": 10, "period_s": 1.0, "refill": 5}
PACE = 4.0


def config(emulator: Any, reads_per_s: float) -> AzureConfig:
    return AzureConfig(installation_id=INSTALLATION, subscription_id=emulator.subscription_id, endpoint=emulator.url,
                       emulator_token=TOKEN, arm_reads_per_s=reads_per_s)


async def read_group_many_times(emulator: Any, reads_per_s: float) -> int:
    """READS reads of the seed's resource group side by side; the 429s the worker's pace was answered."""
    clients = build_clients(config(emulator, reads_per_s))
    try:
        groups = await asyncio.gather(*(clients.resources.resource_groups.get(SEED_RESOURCE_GROUP)
                                        for _ in range(READS)))
        assert {group.name for group in groups} == {SEED_RESOURCE_GROUP}
        return clients.pace.throttled
    finally:
        await clients.close()


def refused_reads(emulator: Any) -> int:
    """The 429s the emulator answered (its count of them, apart from other failures)."""
    return sum(emulator.requests()["throttled_by_operation"].values())


async def test_reads_at_the_pace_meet_no_429(emulator: Any) -> None:
    azure_limits(emulator, arm_reads=BUDGET)
    assert await read_group_many_times(emulator, reads_per_s=PACE) == 0
    assert refused_reads(emulator) == 0


async def test_a_429_after_another_tool_spent_the_budget_is_waited_out(emulator: Any) -> None:
    azure_limits(emulator, arm_reads=BUDGET)
    other_tool = build_clients(config(emulator, reads_per_s=1000.0))
    try:
        for _ in range(BUDGET["capacity"]):
            await other_tool.resources.resource_groups.get(SEED_RESOURCE_GROUP)
    finally:
        await other_tool.close()
    throttled = await read_group_many_times(emulator, reads_per_s=PACE)  # every read answered, none failed
    assert throttled > 0
    assert refused_reads(emulator) == throttled  # every refusal Azure sent was honoured, none reached the caller


async def test_each_worker_sends_its_share_of_the_installations_pace(emulator: Any) -> None:
    azure_limits(emulator, arm_reads=BUDGET)
    clients = [build_clients(config(emulator, reads_per_s=PACE)) for _ in range(2)]
    try:
        for each in clients:
            each.pace.replicas = 2  # as workers/replicas.py counts two workers polling the task queue
        await asyncio.gather(*(each.resources.resource_groups.get(SEED_RESOURCE_GROUP)
                               for each in clients for _ in range(READS // 2)))
        assert sum(each.pace.throttled for each in clients) == 0
    finally:
        for each in clients:
            await each.close()
