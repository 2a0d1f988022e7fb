"""ARM subscription throttling: remaining-quota headers on every answer, 429 with Retry-After."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError

from tests.emulator.builders import RG, nic_body
from tests.support.arm_http import arm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import sdk_clients


def vnet_path(handle: EmulatorHandle) -> str:
    return (f"/subscriptions/{handle.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Network/"
            "virtualNetworks/azmc-vnet")


def test_remaining_headers_count_down_by_category(emulator: EmulatorHandle) -> None:
    first = arm(emulator, "GET", vnet_path(emulator))
    second = arm(emulator, "GET", vnet_path(emulator))
    reads = int(first.headers["x-ms-ratelimit-remaining-subscription-reads"])
    assert int(second.headers["x-ms-ratelimit-remaining-subscription-reads"]) == reads - 1
    nic = (f"/subscriptions/{emulator.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Network/"
           "networkInterfaces/h-nic")
    assert "x-ms-ratelimit-remaining-subscription-writes" in arm(
        emulator, "PUT", nic, nic_body(emulator.subnet_id).as_dict()).headers
    assert "x-ms-ratelimit-remaining-subscription-deletes" in arm(emulator, "DELETE", nic).headers


def test_reads_beyond_the_bucket_are_throttled(emulator: EmulatorHandle) -> None:
    emulator.settings(throttling=True)
    statuses = [arm(emulator, "GET", vnet_path(emulator)).status for _ in range(250)]
    # 250 burst, then 429 as soon as the loop outruns the refill of 25/s (at once, unless the machine is slow).
    assert statuses == [200] * 250
    for _ in range(500):
        throttled = arm(emulator, "GET", vnet_path(emulator))
        if throttled.status != 200:
            break
    assert throttled.status == 429 and throttled.error_code == "SubscriptionRequestsThrottled"
    assert int(throttled.headers["retry-after"]) >= 1
    assert throttled.headers["x-ms-ratelimit-remaining-subscription-reads"] == "0"
    # Writes have their own bucket.
    nic = (f"/subscriptions/{emulator.subscription_id}/resourceGroups/{RG}/providers/Microsoft.Network/"
           "networkInterfaces/t-nic")
    assert arm(emulator, "PUT", nic, nic_body(emulator.subnet_id).as_dict()).status == 201
    # The SDK surfaces the 429 (retry_total=0 so Temporal, not the SDK, owns retries). The bucket refills at
    # 25/s, so drain it again right before.
    drained = [arm(emulator, "GET", vnet_path(emulator)).status for _ in range(60)]
    assert 429 in drained
    clients = sdk_clients(emulator)
    with pytest.raises(HttpResponseError) as caught:
        for _ in range(50):
            clients.network.virtual_networks.get(RG, "azmc-vnet")
    assert caught.value.status_code == 429
    assert int(caught.value.response.headers["Retry-After"]) >= 1
    clients.close()


def test_throttling_off_never_rejects(emulator: EmulatorHandle) -> None:
    assert emulator.settings()["throttling"] is False
    assert {arm(emulator, "GET", vnet_path(emulator)).status for _ in range(270)} == {200}
