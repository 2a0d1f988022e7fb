"""Resource Graph through the real azure-mgmt-resourcegraph clients (sync and .aio) against the emulator.

Two machines with similar names (vm1 with one data disk, vm10 with two) are created through the real
compute/network SDK clients, then found, counted and paged the way the driver and operators would.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.resourcegraph.models import QueryRequest, QueryRequestOptions, QueryResponse

from tests.emulator.builders import RG, nic_body, vm_body
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients, async_sdk_clients, sdk_clients

POOLS = {"vm1": "pool-a", "vm10": "pool-b"}
DATA_DISKS = {"vm1": 1, "vm10": 2}


def tags_of(machine: str) -> dict[str, str]:
    return {"azmc-machine": machine, "azmc-pool": POOLS[machine]}


@pytest.fixture
def clients(emulator: EmulatorHandle) -> Iterator[SyncClients]:
    made = sdk_clients(emulator)
    try:
        for machine in POOLS:
            nic = made.network.network_interfaces.begin_create_or_update(
                RG, f"{machine}-nic", nic_body(emulator.subnet_id, tags_of(machine))
            ).result()
            body = vm_body(machine, nic.id, data_disks=DATA_DISKS[machine], tags=tags_of(machine))
            made.compute.virtual_machines.begin_create_or_update(RG, machine, body).result()
        yield made
    finally:
        made.close()


def request(emulator: EmulatorHandle, text: str, **options: object) -> QueryRequest:
    return QueryRequest(
        subscriptions=[emulator.subscription_id],
        query=text,
        options=QueryRequestOptions(**options) if options else None,
    )


def ask(clients: SyncClients, emulator: EmulatorHandle, text: str, **options: object) -> QueryResponse:
    return clients.graph.resources(request(emulator, text, **options))


def names(response: QueryResponse) -> set[str]:
    return {row["name"] for row in response.data}


def test_machine_tag_query_separates_similar_names(emulator: EmulatorHandle, clients: SyncClients) -> None:
    text = "Resources | where tags['azmc-machine'] =~ 'VM1' | project id, name, type | order by name asc"
    response = ask(clients, emulator, text)

    assert [(row["name"], row["type"]) for row in response.data] == [
        ("vm1", "microsoft.compute/virtualmachines"),
        ("vm1-nic", "microsoft.network/networkinterfaces"),
    ]
    assert (response.total_records, response.count, response.result_truncated) == (2, 2, "false")
    assert response.skip_token is None
    # `==` is case-sensitive; a prefix match would wrongly take vm10's resources too.
    assert names(ask(clients, emulator, "Resources | where tags['azmc-machine'] == 'VM1' | project id, name")) == set()
    assert names(ask(clients, emulator, "Resources | where name startswith 'vm1' | project id, name")) >= {
        "vm1", "vm1-nic", "vm10", "vm10-nic",
    }  # fmt: skip


def test_bag_keys_finds_every_owned_resource_and_counts_per_machine(
    emulator: EmulatorHandle, clients: SyncClients
) -> None:
    text = (
        "Resources | extend tagKeys = bag_keys(tags) | where tagKeys has 'azmc-machine'"
        " | summarize count() by machine = tostring(tags['azmc-machine'])"
    )
    assert ask(clients, emulator, text).data == [{"machine": "vm1", "count_": 2}, {"machine": "vm10", "count_": 2}]
    untagged = "Resources | extend tagKeys = bag_keys(tags) | where not(tagKeys has 'azmc-machine') | project id, name"
    assert "azmc-vnet" in names(ask(clients, emulator, untagged))


def test_disks_of_one_machine_by_managed_by(emulator: EmulatorHandle, clients: SyncClients) -> None:
    text = (
        "Resources | where type =~ 'Microsoft.Compute/disks' and managedBy endswith '/virtualMachines/vm10'"
        " | project id, name, state = properties.diskState"
    )
    response = ask(clients, emulator, text)
    assert names(response) == {"vm10-os-disk", "vm10-0-data-disk", "vm10-1-data-disk"}
    assert {row["state"] for row in response.data} == {"Attached"}


def test_deleting_a_machine_removes_its_rows(emulator: EmulatorHandle, clients: SyncClients) -> None:
    clients.compute.virtual_machines.begin_delete(RG, "vm10").result()  # deleteOption Delete cascades
    remaining = ask(clients, emulator, "Resources | where name has 'vm10' | project id, name")
    assert remaining.data == []
    assert names(ask(clients, emulator, "Resources | where name has 'vm1' | project id, name")) == {
        "vm1", "vm1-nic", "vm1-os-disk", "vm1-0-data-disk",
    }  # fmt: skip


def test_skip_token_pages_walk_every_row_exactly_once(emulator: EmulatorHandle, clients: SyncClients) -> None:
    text = "Resources | project id, name, type | order by name asc"
    everything = ask(clients, emulator, text)
    assert everything.total_records == everything.count >= 10  # 2 VMs, 2 NICs, 5 disks, the seed vnet

    pages = [ask(clients, emulator, text, top=3)]
    while pages[-1].skip_token:
        pages.append(ask(clients, emulator, text, top=3, skip_token=pages[-1].skip_token))

    assert [page.count for page in pages[:-1]] == [3] * (len(pages) - 1)
    assert {page.total_records for page in pages} == {everything.total_records}
    assert [row["id"] for page in pages for row in page.data] == [row["id"] for row in everything.data]
    window = ask(clients, emulator, text, top=2, skip=2)
    assert window.data == everything.data[2:4]


def test_limit_marks_the_result_truncated_without_a_token(emulator: EmulatorHandle, clients: SyncClients) -> None:
    response = ask(clients, emulator, "Resources | project id, name | take 5", top=2)
    assert (response.total_records, response.count, response.result_truncated) == (5, 2, "true")
    assert response.skip_token is None


@pytest.mark.parametrize(
    ("text", "options", "message"),
    [
        ("Resources | join kind=rightanti (Resources) on id", {}, "unsupported join kind 'rightanti'"),
        ("Resources | mv-expand zones", {}, "unsupported operator 'mv-expand'"),
        ("Resources | where parse_json(name) == 'x'", {}, "unsupported function 'parse_json'"),
        ("Resources | project id", {"top": 1001}, "$top must be between 1 and 1000"),
        ("Resources | project id", {"skip_token": "bm8gbHVjaw=="}, "invalid $skipToken"),
    ],
)
def test_refused_queries_are_bad_requests_naming_the_cause(
    emulator: EmulatorHandle, clients: SyncClients, text: str, options: dict[str, object], message: str
) -> None:
    with pytest.raises(HttpResponseError) as caught:
        ask(clients, emulator, text, **options)
    assert caught.value.status_code == 400
    assert caught.value.error is not None and caught.value.error.code == "BadRequest"
    assert message in caught.value.error.message


def test_skip_token_of_another_query_is_a_bad_request(emulator: EmulatorHandle, clients: SyncClients) -> None:
    token = ask(clients, emulator, "Resources | project id, name", top=2).skip_token
    assert token
    with pytest.raises(HttpResponseError) as caught:
        ask(clients, emulator, "Resources | project id, type", top=2, skip_token=token)
    assert caught.value.status_code == 400 and "different query" in caught.value.error.message


async def test_aio_client_queries_pages_and_gets_400(emulator: EmulatorHandle, clients: SyncClients) -> None:
    aio = async_sdk_clients(emulator)
    try:
        text = "Resources | where isnotempty(tags['azmc-pool']) | project id, name, pool = tags['azmc-pool']"
        first = await aio.graph.resources(request(emulator, text, top=3))
        assert (first.total_records, first.count) == (4, 3) and first.skip_token
        second = await aio.graph.resources(request(emulator, text, top=3, skip_token=first.skip_token))
        assert second.count == 1 and second.skip_token is None
        rows = first.data + second.data
        assert {(row["name"], row["pool"]) for row in rows} == {
            ("vm1", "pool-a"), ("vm1-nic", "pool-a"), ("vm10", "pool-b"), ("vm10-nic", "pool-b"),
        }  # fmt: skip
        with pytest.raises(HttpResponseError) as caught:
            await aio.graph.resources(request(emulator, "Resources | union ResourceContainers"))
        assert caught.value.status_code == 400 and caught.value.error.code == "BadRequest"
        assert "unsupported operator 'union'" in caught.value.error.message
    finally:
        await aio.close()
