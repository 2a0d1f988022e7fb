"""The network provider's 5-minute window and ARM's buckets under `--limits azure`, through the real network
SDK: 429 in each one's shape with `Retry-After`, ARM's remaining headers counting down, and the limit
letting requests through again after the wait. Budgets are made small so a test takes seconds."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError

from tests.emulator.builders import RG, nic_body
from tests.emulator.limit_steps import Answers, azure_limits, throttled, wait_out
from tests.support.arm_http import arm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def test_network_writes_and_deletes_share_a_sliding_window(emulator: EmulatorHandle, clients: SyncClients) -> None:
    azure_limits(emulator, network_writes={"capacity": 3, "period_s": 6})
    seen = Answers()
    nics = clients.network.network_interfaces

    def put(name: str) -> None:
        nics.begin_create_or_update(RG, name, nic_body(emulator.subnet_id), raw_response_hook=seen).result()

    put("w1")
    put("w2")
    nics.begin_delete(RG, "w1", raw_response_hook=seen).result()  # a delete counts with the writes
    assert [int(h["x-ms-ratelimit-remaining-subscription-writes"]) for m, _, h in seen.seen if m == "PUT"] == [
        199, 198]  # ARM's own bucket counts down beside; NRP sends no remaining count of its own
    assert all("x-ms-ratelimit-remaining-resource" not in h for _, _, h in seen.seen)
    with pytest.raises(HttpResponseError) as caught:
        put("w3")
    code, retry_after, details = throttled(caught.value)
    assert code == "RetryableError" and caught.value.error.message == "A retryable error occurred."
    assert details[0].code == "RetryableErrorDueToTooManyCallsToThisOperation"
    assert details[0].message.startswith("Operation PutNicOperation exceeded throttling limit of 3 calls")
    assert f"retried in {retry_after} seconds" in details[0].message and 1 <= retry_after <= 6
    with pytest.raises(HttpResponseError) as caught:
        nics.begin_delete(RG, "w2").result()
    assert throttled(caught.value)[0] == "RetryableError"
    assert nics.get(RG, "w2").name == "w2"  # reads have their own window
    wait_out(retry_after)  # the oldest write has left the window
    put("w3")
    assert {nic.name for nic in nics.list(RG)} == {"w2", "w3"}


def test_arm_buckets_refuse_before_any_provider(emulator: EmulatorHandle, clients: SyncClients) -> None:
    azure_limits(emulator, arm_reads={"capacity": 3, "refill": 3, "period_s": 6})
    seen = Answers()
    vnets = clients.network.virtual_networks
    for _ in range(3):
        vnets.get(RG, "azmc-vnet", raw_response_hook=seen)
    assert [int(h["x-ms-ratelimit-remaining-subscription-reads"]) for _, _, h in seen.seen] == [2, 1, 0]
    with pytest.raises(HttpResponseError) as caught:
        vnets.get(RG, "azmc-vnet", raw_response_hook=seen)
    code, retry_after, _ = throttled(caught.value)
    assert code == "SubscriptionRequestsThrottled" and 1 <= retry_after <= 6
    assert f"after '{retry_after}' seconds" in caught.value.error.message
    assert seen.seen[-1][2]["x-ms-ratelimit-remaining-subscription-reads"] == "0"
    nic = (f"/subscriptions/{emulator.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Network/"
           "networkInterfaces/a1")
    written = arm(emulator, "PUT", nic, nic_body(emulator.subnet_id).as_dict())  # writes have a bucket of their own
    assert written.status == 201 and written.headers["x-ms-ratelimit-remaining-subscription-writes"] == "199"
    wait_out(retry_after)
    vnets.get(RG, "azmc-vnet", raw_response_hook=seen)
    assert seen.seen[-1][2]["x-ms-ratelimit-remaining-subscription-reads"] == "2"
