"""The emulator refuses the names and ids Azure refuses, with Azure's codes, through the real azure-mgmt SDK (which
escapes every name it puts into a URL: an escaped '/' stays inside its name, as ARM reads paths). The sources of
each code are in emulator/arm/rules/ (names.py, marketplace.py, linked_ids.py)."""

from __future__ import annotations

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute import models as cm
from azure.mgmt.marketplaceordering import MarketplaceOrderingAgreements
from azure.mgmt.network import models as nm

from emulator.seed import SEED_PLAN
from tests.emulator.builders import LOCATION, RG, nic_body, vm_body
from tests.emulator.steps import make_nic
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import AllowLoopbackHttp, StaticToken, SyncClients

# Issue 37's probe: a plan that, put into a path as it is, would climb out of it.
HOSTILE_PLAN = {"name": "p'|x", "publisher": "../..", "product": "\u00fc\u202e"}


def _refused(call: object) -> HttpResponseError:
    with pytest.raises(HttpResponseError) as caught:
        call()
    return caught.value


def _agreements(emulator: EmulatorHandle) -> MarketplaceOrderingAgreements:
    return MarketplaceOrderingAgreements(StaticToken(), emulator.subscription_id, base_url=emulator.url,
                                         per_call_policies=[AllowLoopbackHttp()], retry_total=0)


@pytest.mark.parametrize(("kind", "body"), [
    ("public_ip_addresses", nm.PublicIPAddress(location=LOCATION, sku=nm.PublicIPAddressSku(name="Standard"),
                                               public_ip_allocation_method="Static")),
    ("network_security_groups", nm.NetworkSecurityGroup(location=LOCATION)),
    ("application_security_groups", nm.ApplicationSecurityGroup(location=LOCATION)),
    ("load_balancers", nm.LoadBalancer(location=LOCATION, sku=nm.LoadBalancerSku(name="Standard"))),
])
@pytest.mark.parametrize("name", ["a'b|c", "-x", "x.", "a/b"])
def test_network_names_azure_refuses_are_invalid_resource_names(emulator: EmulatorHandle, clients: SyncClients,
                                                                 kind: str, body: object, name: str) -> None:
    error = _refused(lambda: getattr(clients.network, kind).begin_create_or_update(RG, name, body))
    assert (error.status_code, error.error.code) == (400, "InvalidResourceName")
    getattr(clients.network, kind).begin_create_or_update(RG, "ok_1.x", body).result()  # the rule's own names pass


def test_the_terms_of_a_plan_no_offer_can_have_are_not_found(emulator: EmulatorHandle) -> None:
    agreements = _agreements(emulator).marketplace_agreements
    error = _refused(lambda: agreements.get("virtualmachine", HOSTILE_PLAN["publisher"], HOSTILE_PLAN["product"],
                                            HOSTILE_PLAN["name"]))
    assert (error.status_code, error.error.code) == (404, "NotFound")
    assert error.error.message.startswith("Unable to find legal terms for this offer.")
    # An escaped '/' stays inside the publisher's name: this is the terms' route, not some other path.
    error = _refused(lambda: agreements.get("virtualmachine", "a/b", "offer", "plan"))
    assert error.error.message.startswith("Unable to find legal terms for this offer.")
    terms = agreements.get("virtualmachine", SEED_PLAN["publisher"], SEED_PLAN["product"], SEED_PLAN["name"])
    assert (terms.publisher, terms.product, terms.plan) == (SEED_PLAN["publisher"], SEED_PLAN["product"],
                                                            SEED_PLAN["name"])


def test_a_vm_whose_plan_names_no_offer_is_refused_as_azure_does(emulator: EmulatorHandle,
                                                                 clients: SyncClients) -> None:
    body = vm_body("planned", make_nic(clients, emulator, "planned-nic"))
    body.plan = cm.Plan(**HOSTILE_PLAN)
    error = _refused(lambda: clients.compute.virtual_machines.begin_create_or_update(RG, "planned", body))
    assert (error.status_code, error.error.code) == (400, "MarketplacePurchaseEligibilityFailed")
    assert "The offer with Offer ID '\u00fc\u202e' was not found" in error.error.details[0].message
    assert emulator.resources("virtualMachines") == []


@pytest.mark.parametrize("image", [
    cm.ImageReference(publisher="../..", offer="o", sku="s", version="latest"),
    cm.ImageReference(publisher="Canonical", offer="ubuntu-24_04-lts", sku="server", version="1.0/../2"),
])
def test_a_platform_image_no_marketplace_can_have_is_not_found(emulator: EmulatorHandle, clients: SyncClients,
                                                               image: cm.ImageReference) -> None:
    body = vm_body("imaged", make_nic(clients, emulator, "imaged-nic"))
    body.storage_profile.image_reference = image
    error = _refused(lambda: clients.compute.virtual_machines.begin_create_or_update(RG, "imaged", body))
    assert (error.status_code, error.error.code, error.error.target) == (404, "PlatformImageNotFound", "imageReference")
    assert error.error.message.startswith(f"The platform image '{image.publisher}:{image.offer}:")


def test_an_id_that_is_not_fully_qualified_is_a_linked_invalid_property_id(emulator: EmulatorHandle,
                                                                          clients: SyncClients) -> None:
    body = nic_body(emulator.subnet_id)
    body.network_security_group = nm.NetworkSecurityGroup(id="networkSecurityGroups/nsg1")
    error = _refused(lambda: clients.network.network_interfaces.begin_create_or_update(RG, "linked-nic", body))
    assert (error.status_code, error.error.code) == (400, "LinkedInvalidPropertyId")
    assert error.error.message == ("Property id 'networkSecurityGroups/nsg1' at path 'properties.networkSecurityGroup"
                                   ".id' is invalid. Expect fully qualified resource Id that start with "
                                   "'/subscriptions/{subscriptionId}' or '/providers/{resourceProviderNamespace}/'.")
    vm = vm_body("linked", "nic-without-a-path")
    error = _refused(lambda: clients.compute.virtual_machines.begin_create_or_update(RG, "linked", vm))
    assert error.error.code == "LinkedInvalidPropertyId" and \
        "at path 'properties.networkProfile.networkInterfaces[0].id'" in error.error.message


def test_a_well_formed_id_naming_what_cannot_exist_is_a_missing_reference(emulator: EmulatorHandle,
                                                                         clients: SyncClients) -> None:
    body = nic_body(emulator.subnet_id)
    nsg_id = emulator.subnet_id.split("/virtualNetworks/")[0] + "/networkSecurityGroups/a'b|c"
    body.network_security_group = nm.NetworkSecurityGroup(id=nsg_id)
    error = _refused(lambda: clients.network.network_interfaces.begin_create_or_update(RG, "probe-nic", body))
    assert (error.status_code, error.error.code) == (400, "InvalidResourceReference") and nsg_id in error.error.message


@pytest.mark.parametrize("name", ["rg\u00b2", "rg\u216b", "rg\u202e"])  # a superscript two, a Roman twelve, an RLO
def test_a_resource_group_takes_letters_and_digits_only_as_dotnet_means_them(clients: SyncClients, name: str) -> None:
    error = _refused(lambda: clients.resources.resource_groups.create_or_update(name, {"location": LOCATION}))
    assert (error.status_code, error.error.code) == (400, "InvalidResourceGroup")
    assert clients.resources.resource_groups.create_or_update("グループ_1", {"location": LOCATION}).name == "グループ_1"
