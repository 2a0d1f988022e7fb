"""Each emulator fault reaches the workflow as the right ApplicationError (type, retryability, delay)."""

import asyncio
import socket
from datetime import timedelta
from typing import Any

import pytest
from temporalio.exceptions import ApplicationError

from activities.arm_pace import RESENDS, WAIT_IN_CALL_S
from activities.config import AzureConfig
from activities.driver import AzureDriver
from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import DeleteResourceInput, DeleteVmInput, EnsureVmInput, ListMachinesInput, MachineRef
from models.errors import ErrorType
from tests.activities.conftest import INSTALLATION, TOKEN

RG = SEED_RESOURCE_GROUP
VM1 = MachineRef(resource_group=RG, name="vm1")
RESERVED = ("Nic(s) in request is reserved for another Virtual Machine for 180 seconds. Please provide "
            "another nic(s) or retry after 180 seconds. Reserved VM: /subscriptions/x/virtualMachines/vm1")


async def raised(coro: Any) -> ApplicationError:
    with pytest.raises(ApplicationError) as info:
        await coro
    return info.value


@pytest.mark.parametrize(
    ("fault", "kind", "non_retryable", "delay"),
    [
        ({"status": 500, "code": "InternalServerError"}, ErrorType.TRANSIENT, False, None),
        ({"status": 409, "code": "AnotherOperationInProgress"}, ErrorType.CONFLICT, False, None),
        ({"status": 400, "code": "InvalidParameter", "message": "vmSize is bad"}, ErrorType.INVALID_SPEC, True,
         None),
        ({"status": 403, "code": "AuthorizationFailed"}, ErrorType.AUTH_FAILED, True, None),
        ({"status": 409, "code": "SkuNotAvailable"}, ErrorType.CAPACITY_EXHAUSTED, False, None),
        ({"status": 409, "code": "AllocationFailed", "stage": "operation"}, ErrorType.CAPACITY_EXHAUSTED, False,
         None),
        ({"status": 409, "code": "ZonalAllocationFailed", "stage": "operation"}, ErrorType.CAPACITY_EXHAUSTED,
         False, None),
        ({"status": 400, "code": "NicReservedForAnotherVm", "message": RESERVED}, ErrorType.NIC_RESERVED, False,
         timedelta(seconds=180)),
    ],
)
async def test_vm_put_faults(driver, env, make_spec, emulator, fault, kind, non_retryable, delay) -> None:
    spec = make_spec()
    nic_id = await env.run(driver.ensure_nic, spec)
    emulator.add_fault(operation="virtualMachines.put", name="vm1", **fault)
    error = await raised(env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id)))
    assert (error.type, error.non_retryable, error.next_retry_delay) == (kind.value, non_retryable, delay)
    assert fault["code"] in error.message


async def test_throttling_carries_retry_after(driver, env, make_spec, emulator) -> None:
    emulator.add_fault(operation="virtualMachines.get", status=429, code="SubscriptionRequestsThrottled")
    error = await raised(env.run(driver.read_inventory, make_spec()))
    assert error.type == ErrorType.THROTTLED and not error.non_retryable
    assert error.next_retry_delay == timedelta(seconds=30)  # no Retry-After on this 429: our default


@pytest.mark.parametrize(("retry_after_s", "delay"), [(7, timedelta(seconds=7)), (0.25, timedelta(milliseconds=250))])
async def test_a_throttled_answer_is_retried_after_the_wait_it_asks_for(
        driver, env, make_spec, emulator, retry_after_s, delay) -> None:
    """A short wait is waited out inside the call, a few times (activities/arm_pace.py); then, or at once for a long
    one, the activity's next attempt waits it."""
    emulator.add_fault(operation="virtualMachines.get", status=429, code="SubscriptionRequestsThrottled",
                       retry_after_s=retry_after_s, times=-1)
    error = await raised(env.run(driver.read_inventory, make_spec()))
    assert error.type == ErrorType.THROTTLED and error.next_retry_delay == delay
    sent = 1 + RESENDS if retry_after_s <= WAIT_IN_CALL_S else 1
    assert emulator.requests()["failed_by_operation"]["virtualMachines.get"] == sent


async def test_a_short_throttling_is_waited_out_inside_the_call(driver, env, make_spec, create_machine,
                                                                 emulator) -> None:
    spec = make_spec()
    await create_machine(spec)
    emulator.add_fault(operation="virtualMachines.get", status=429, code="SubscriptionRequestsThrottled",
                       retry_after_s=0.25, times=RESENDS)
    assert (await env.run(driver.read_inventory, spec)).provider_id


async def test_nic_in_use_is_a_retryable_conflict(driver, env, make_spec, create_machine) -> None:
    spec = make_spec()
    await create_machine(spec)
    error = await raised(env.run(driver.delete_nic, DeleteResourceInput(machine=VM1, name="vm1-nic")))
    assert error.type == ErrorType.CONFLICT and "NicInUse" in error.message and not error.non_retryable


async def test_nic_reserved_after_a_failed_create(driver, env, make_spec, emulator) -> None:
    emulator.settings(time_scale=1)  # keep the 180 s reservation alive while we look at it
    spec = make_spec()
    nic_id = await env.run(driver.ensure_nic, spec)
    emulator.add_fault(operation="virtualMachines.put", name="vm1", status=409, code="AllocationFailed",
                       stage="operation")
    await raised(env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=nic_id)))
    await env.run(driver.delete_vm, DeleteVmInput(machine=VM1, force=True))
    error = await raised(env.run(driver.delete_nic, DeleteResourceInput(machine=VM1, name="vm1-nic")))
    assert error.type == ErrorType.NIC_RESERVED and not error.non_retryable
    assert error.next_retry_delay is not None
    assert timedelta(seconds=100) < error.next_retry_delay <= timedelta(seconds=180)


async def test_nic_operation_failure_is_classified(driver, env, make_spec, emulator) -> None:
    emulator.add_fault(operation="networkInterfaces.put", status=500, code="InternalServerError",
                       stage="operation")
    error = await raised(env.run(driver.ensure_nic, make_spec()))
    assert error.type == ErrorType.TRANSIENT and not error.non_retryable


async def test_graph_failure_is_classified(driver, env, emulator) -> None:
    emulator.add_fault(operation="resourceGraph.query", status=503, code="ServiceUnavailable")
    error = await raised(env.run(driver.list_machines, ListMachinesInput()))
    assert error.type == ErrorType.TRANSIENT


async def test_resource_listing_failure_is_classified(driver, env, make_spec, emulator) -> None:
    """No VM: what is left is read from ARM's list of the resource group, and its failure is Transient."""
    emulator.add_fault(operation="resources.list", status=503, code="ServiceUnavailable")
    error = await raised(env.run(driver.read_inventory, make_spec()))
    assert error.type == ErrorType.TRANSIENT


async def test_connection_refused_is_transient(env, make_spec) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once the socket closes
    closed = await AzureDriver.open(AzureConfig(installation_id="driver-tests", subscription_id="s", endpoint=f"http://127.0.0.1:{port}",
                                                emulator_token="t", request_timeout_s=5))
    try:
        error = await raised(env.run(closed.read_inventory, make_spec()))
    finally:
        await closed.close()
    assert error.type == ErrorType.TRANSIENT and not error.non_retryable


async def test_missing_token_is_auth_failed(emulator, env, make_spec) -> None:
    anonymous = await AzureDriver.open(AzureConfig(installation_id="driver-tests",
                                                   subscription_id=emulator.subscription_id,
                                                   endpoint=emulator.url, emulator_token=" "))
    try:
        error = await raised(env.run(anonymous.read_inventory, make_spec()))
    finally:
        await anonymous.close()
    assert error.type == ErrorType.AUTH_FAILED and error.non_retryable


async def test_real_arm_throttling_becomes_throttled_with_retry_after(env, make_spec, create_machine,
                                                                      emulator) -> None:
    """The emulator's ARM read bucket, refilled slowly: a burst past it with the worker's pace lifted, and ARM's
    own Retry-After, longer than a call waits, becomes the activity's next delay."""
    spec = make_spec()
    await create_machine(spec)
    emulator.settings(limits="azure", limits_overrides={"arm.reads": {"capacity": 20, "period_s": 8, "refill": 20}})
    config = AzureConfig(installation_id=INSTALLATION, subscription_id=emulator.subscription_id, endpoint=emulator.url,
                         emulator_token=TOKEN, arm_reads_per_s=10000)
    unpaced = await AzureDriver.open(config)
    try:
        results = await asyncio.gather(*(env.run(unpaced.read_inventory, spec) for _ in range(40)),
                                       return_exceptions=True)
    finally:
        await unpaced.close()
    throttled = [r for r in results if isinstance(r, ApplicationError)]
    assert throttled, "40 reads in a burst must exceed a 20-read bucket"
    assert all(e.type == ErrorType.THROTTLED and not e.non_retryable for e in throttled)
    # Retry-After came from the 429 itself (whole seconds, up to the 8 s period), not our 30 s default.
    assert all(e.next_retry_delay is not None and timedelta(seconds=1) <= e.next_retry_delay
               <= timedelta(seconds=8) for e in throttled)
    assert all(not isinstance(r, BaseException) or isinstance(r, ApplicationError) for r in results)
