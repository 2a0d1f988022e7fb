"""`azmc get`'s abandoned list believes Resource Graph only for candidates: direct GETs through the real
SDK (against the emulator) decide what still exists, and `ours` decides what belongs to azmc."""

from collections.abc import AsyncIterator

import pytest

from activities.clients import AzureClients, build_clients
from activities.config import AzureConfig
from cli.machine.abandoned import confirmed, ours
from models.activity_io import MachineSummary
from models.inventory import Inventory
from models.naming import MACHINE_TAG, OWNER_TAG
from tests.activities.conftest import put_disk
from tests.support.emulator import EmulatorHandle

INSTALLATION = "abandoned-tests"


@pytest.fixture
async def clients(emulator: EmulatorHandle) -> AsyncIterator[AzureClients]:
    built = build_clients(AzureConfig(installation_id=INSTALLATION, subscription_id=emulator.subscription_id,
                                      endpoint=emulator.url, emulator_token="abandoned-test"))  # fmt: skip
    try:
        yield built
    finally:
        await built.close()


def _listed(name: str) -> MachineSummary:
    """What a lagging graph may still list: a VM, its NIC and two disks."""
    inventory = Inventory(provider_id=f"azure:///x/virtualMachines/{name}", node_name=name,
                          nic_names=[f"{name}-nic"], disk_names=[f"{name}-os-disk", f"{name}-0-data-disk"])  # fmt: skip
    return MachineSummary(name=name, resource_group="azmc-demo", inventory=inventory)


def test_ours_is_this_installations_owner_tag_or_the_machine_tag_alone() -> None:
    assert ours({"tags": {MACHINE_TAG: "vm1", OWNER_TAG: f"{INSTALLATION}/machine/rg/vm1"}}, INSTALLATION)
    assert ours({"tags": {MACHINE_TAG: "vm1"}}, INSTALLATION)  # made before owner tags
    assert not ours({"tags": {MACHINE_TAG: "vm1", OWNER_TAG: "other/machine/rg/vm1"}}, INSTALLATION)
    assert not ours({"tags": {"team": "x"}}, INSTALLATION) and not ours({"tags": None}, INSTALLATION)
    assert not ours({}, INSTALLATION)


async def test_only_what_a_direct_get_finds_is_shown(clients: AzureClients) -> None:
    await put_disk(clients, "gone-os-disk", {MACHINE_TAG: "gone"})
    still = await confirmed(clients, _listed("gone"))
    assert still == Inventory(disk_names=["gone-os-disk"])  # VM, NIC and data disk are gone already


async def test_a_machine_deleted_since_the_graph_saw_it_is_not_abandoned(clients: AzureClients) -> None:
    assert (await confirmed(clients, _listed("deleted"))).is_empty


async def test_a_resource_not_ours_under_the_same_name_is_not_shown(clients: AzureClients) -> None:
    await put_disk(clients, "foreign-os-disk", {"team": "someone-else"})
    assert (await confirmed(clients, _listed("foreign"))).is_empty


async def test_another_installations_machine_is_not_ours_to_list(clients: AzureClients) -> None:
    await put_disk(clients, "theirs-os-disk", {MACHINE_TAG: "theirs", OWNER_TAG: "other/machine/azmc-demo/theirs"})
    await put_disk(clients, "mine-os-disk", {MACHINE_TAG: "mine", OWNER_TAG: f"{INSTALLATION}/machine/azmc-demo/mine"})
    assert (await confirmed(clients, _listed("theirs"))).is_empty
    assert (await confirmed(clients, _listed("mine"))).disk_names == ["mine-os-disk"]
