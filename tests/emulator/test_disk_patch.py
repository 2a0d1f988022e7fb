"""Disk PATCH (the SDK's `disks.begin_update`): merges fields, replaces tags, runs as a long-running operation."""

from __future__ import annotations

import time

import pytest
from azure.core.exceptions import HttpResponseError, ResourceNotFoundError
from azure.mgmt.compute import models as cm
from azure.mgmt.resourcegraph.models import QueryRequest

from tests.emulator.builders import LOCATION, RG
from tests.support.arm_http import arm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def make_disk(clients: SyncClients, name: str, tags: dict[str, str] | None = None) -> cm.Disk:
    return clients.compute.disks.begin_create_or_update(RG, name, cm.Disk(
        location=LOCATION, tags=tags, sku=cm.DiskSku(name="Premium_LRS"), disk_size_gb=8,
        creation_data=cm.CreationData(create_option="Empty"))).result()


def graph_tags(clients: SyncClients, emulator: EmulatorHandle, name: str) -> list[dict[str, str]]:
    request = QueryRequest(subscriptions=[emulator.subscription_id],
                           query=f"Resources | where name == '{name}' | project tags")
    return [row["tags"] for row in clients.graph.resources(request).data]


def test_update_replaces_tags_and_keeps_the_rest(emulator: EmulatorHandle, clients: SyncClients) -> None:
    before = make_disk(clients, "p-disk", {"old": "1", "keep": "no"})
    updated = clients.compute.disks.begin_update(RG, "p-disk", cm.DiskUpdate(tags={"azmc-machine": "m1"})).result()
    assert updated.tags == {"azmc-machine": "m1"}  # replaced as a whole, like Azure
    assert updated.provisioning_state == "Succeeded"
    assert (updated.disk_size_gb, updated.sku.name, updated.unique_id) == (8, "Premium_LRS", before.unique_id)
    assert clients.compute.disks.get(RG, "p-disk").tags == {"azmc-machine": "m1"}
    assert graph_tags(clients, emulator, "p-disk") == [{"azmc-machine": "m1"}]
    assert emulator.requests()["by_operation"]["disks.patch"] == 1


def test_update_without_tags_keeps_them_and_merges_size(clients: SyncClients) -> None:
    make_disk(clients, "s-disk", {"azmc-machine": "m1"})
    updated = clients.compute.disks.begin_update(RG, "s-disk", cm.DiskUpdate(disk_size_gb=64)).result()
    assert (updated.tags, updated.disk_size_gb, updated.tier) == ({"azmc-machine": "m1"}, 64, "P6")


def test_patch_answers_as_a_long_running_operation(emulator: EmulatorHandle, clients: SyncClients) -> None:
    made = make_disk(clients, "lro-disk")
    answer = arm(emulator, "PATCH", made.id, {"tags": {"a": "b"}})
    assert answer.status == 202
    assert "/operations/" in answer.headers["azure-asyncoperation"]
    assert "/operationResults/" in answer.headers["location"]
    status = arm(emulator, "GET", answer.headers["azure-asyncoperation"])
    assert status.body["status"] == "Succeeded"


def test_missing_disk_is_404(clients: SyncClients) -> None:
    with pytest.raises(ResourceNotFoundError) as caught:
        clients.compute.disks.begin_update(RG, "no-such-disk", cm.DiskUpdate(tags={"a": "b"})).result()
    assert caught.value.error.code == "ResourceNotFound"


def test_patch_is_faultable_at_request_and_operation(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_disk(clients, "f-disk", {"v": "0"})
    emulator.add_fault("disks.patch", name="f-disk", status=503, code="ServerBusy")
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.disks.begin_update(RG, "f-disk", cm.DiskUpdate(tags={"v": "1"}),
                                           retry_total=0).result()
    assert caught.value.status_code == 503
    emulator.add_fault("disks.patch", name="f-disk", status=500, code="InternalExecutionError", stage="operation")
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.disks.begin_update(RG, "f-disk", cm.DiskUpdate(tags={"v": "2"})).result()
    assert "InternalExecutionError" in str(caught.value)
    disk = clients.compute.disks.get(RG, "f-disk")
    assert (disk.tags, disk.provisioning_state) == ({"v": "0"}, "Succeeded")  # a failed update changes nothing


def test_graph_shows_new_tags_after_the_index_lag(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_disk(clients, "lag-disk", {"v": "0"})
    emulator.settings(time_scale=0.1, index_lag_s=3)  # 0.3 s of lag
    time.sleep(0.35)
    clients.compute.disks.begin_update(RG, "lag-disk", cm.DiskUpdate(tags={"v": "1"})).result()
    assert graph_tags(clients, emulator, "lag-disk") == [{"v": "0"}]
    time.sleep(0.35)
    assert graph_tags(clients, emulator, "lag-disk") == [{"v": "1"}]
