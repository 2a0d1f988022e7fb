"""read_usages: the vCPU quotas of a location (one ARM list) as the memory of offerings foresees them with."""

import pytest
from temporalio.exceptions import ApplicationError

from emulator.seed import SEED_LOCATION
from models.activity_io import UsagesQuestion
from models.errors import ErrorType
from models.quota import QuotaUsage

DEFAULT = 100_000  # the emulator lists a quota it does not limit with this (emulator/compute/allocation/usages.py)


async def test_usages_show_the_vcpus_a_machine_holds_against_the_quota_set(
        driver, env, make_spec, create_machine, emulator) -> None:
    emulator.set_quota(8, family="standardDSv5Family")
    await create_machine(make_spec(vm_size="Standard_D4s_v5"))
    question = UsagesQuestion(subscription=emulator.subscription_id, location=SEED_LOCATION)
    driver.reset_request_counts()
    assert await env.run(driver.read_usages, question) == [
        QuotaUsage(name="cores", current=4, limit=DEFAULT), QuotaUsage(name="standardDSv5Family", current=4, limit=8),
        QuotaUsage(name="lowPriorityCores", current=0, limit=DEFAULT)]
    assert driver.request_counts() == {"usages.list": 1}


async def test_another_subscriptions_usages_are_refused_without_a_request(driver, env) -> None:
    driver.reset_request_counts()
    with pytest.raises(ApplicationError) as refused:
        await env.run(driver.read_usages, UsagesQuestion(subscription="other", location=SEED_LOCATION))
    assert refused.value.type == ErrorType.INVALID_SPEC and refused.value.non_retryable
    assert driver.request_counts() == {}
