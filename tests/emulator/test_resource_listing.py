"""ARM's listing of a resource group (Resources_ListByResourceGroup) with the `$filter`s ARM documents,
through the real azure-mgmt-resource client: from ARM's own state, with no index lag."""

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.resource.resources import ResourceManagementClient

from tests.emulator.builders import RG, nic_body
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import StaticToken, SyncClients, client_kwargs


@pytest.fixture
def arm_resources(emulator: EmulatorHandle) -> ResourceManagementClient:
    return ResourceManagementClient(StaticToken(), emulator.subscription_id, **client_kwargs(emulator))


def _nic(clients: SyncClients, emulator: EmulatorHandle, name: str, tags: dict[str, str]) -> None:
    clients.network.network_interfaces.begin_create_or_update(RG, name, nic_body(emulator.subnet_id, tags)).result()


def test_a_name_filter_lists_the_machines_resources_with_their_tags(
    emulator: EmulatorHandle, clients: SyncClients, arm_resources: ResourceManagementClient,
) -> None:
    _nic(clients, emulator, "vm1-nic", {"azmc-machine": "vm1"})
    _nic(clients, emulator, "vm10-nic", {"azmc-machine": "vm10"})
    found = list(arm_resources.resources.list_by_resource_group(RG, filter="substringof('VM1-', name)"))
    assert [(r.name, r.type, r.tags) for r in found] == [
        ("vm1-nic", "Microsoft.Network/networkInterfaces", {"azmc-machine": "vm1"})]


def test_a_resource_is_listed_from_its_put_until_its_delete(
    emulator: EmulatorHandle, clients: SyncClients, arm_resources: ResourceManagementClient,
) -> None:
    emulator.settings(index_lag_s=30)  # the graph would not see it for 30 s; ARM's own list does at once
    _nic(clients, emulator, "lag-nic", {})
    assert "lag-nic" in [r.name for r in arm_resources.resources.list_by_resource_group(RG)]
    clients.network.network_interfaces.begin_delete(RG, "lag-nic").result()
    assert "lag-nic" not in [r.name for r in arm_resources.resources.list_by_resource_group(RG)]


def test_a_tag_name_and_value_filter_returns_no_tags(
    emulator: EmulatorHandle, clients: SyncClients, arm_resources: ResourceManagementClient,
) -> None:
    _nic(clients, emulator, "tagged-nic", {"Team": "a"})
    _nic(clients, emulator, "other-nic", {"team": "b"})
    by_value = list(arm_resources.resources.list_by_resource_group(RG, filter="tagName eq 'team' and tagValue eq 'a'"))
    assert [(r.name, r.tags) for r in by_value] == [("tagged-nic", None)]  # as ARM: tags left out
    by_name = list(arm_resources.resources.list_by_resource_group(RG, filter="tagName eq 'TEAM'"))
    assert sorted(r.name for r in by_name) == ["other-nic", "tagged-nic"]


def test_an_unsupported_filter_is_refused_as_arm_refuses_it(arm_resources: ResourceManagementClient) -> None:
    with pytest.raises(HttpResponseError) as caught:
        list(arm_resources.resources.list_by_resource_group(RG, filter="provisioningState eq 'Succeeded'"))
    assert caught.value.status_code == 400 and caught.value.error.code == "InvalidFilterInQueryString"
