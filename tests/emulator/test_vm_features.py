"""Identity, gallery images, purchase plans, marketplace terms and boot diagnostics of a VM through the real SDK."""

from __future__ import annotations

import urllib.request

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute import models as cm
from azure.mgmt.marketplaceordering import MarketplaceOrderingAgreements

from emulator.seed import (
    SEED_COMMUNITY_GALLERY_IMAGE,
    SEED_PLAN,
    SEED_SHARED_GALLERY_IMAGE,
    seed_gallery_image_version_id,
    seed_identity_id,
    seed_managed_image_id,
)
from tests.emulator.builders import RG, vm_body
from tests.emulator.steps import make_nic, make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import AllowLoopbackHttp, StaticToken, SyncClients

MISSING_IDENTITY = seed_identity_id("nobody")


def _vm_with(clients: SyncClients, emulator: EmulatorHandle, name: str, **fields: object) -> cm.VirtualMachine:
    body = vm_body(name, make_nic(clients, emulator, f"{name}-nic"))
    for key, value in fields.items():
        setattr(body, key, value)
    return clients.compute.virtual_machines.begin_create_or_update(RG, name, body).result()


def _image(body_image: cm.ImageReference, clients: SyncClients, emulator: EmulatorHandle, name: str) -> None:
    body = vm_body(name, make_nic(clients, emulator, f"{name}-nic"))
    body.storage_profile.image_reference = body_image
    clients.compute.virtual_machines.begin_create_or_update(RG, name, body).result()


def test_system_and_user_assigned_identities_are_returned(emulator: EmulatorHandle, clients: SyncClients) -> None:
    users = {seed_identity_id(): cm.UserAssignedIdentitiesValue()}
    identity = cm.VirtualMachineIdentity(type="SystemAssigned, UserAssigned", user_assigned_identities=users)
    vm = _vm_with(clients, emulator, "ident", identity=identity)
    read = clients.compute.virtual_machines.get(RG, "ident")
    assert read.identity.type == "SystemAssigned, UserAssigned"
    assert read.identity.principal_id and read.identity.tenant_id
    (user_id, user), = read.identity.user_assigned_identities.items()
    assert user_id.lower() == seed_identity_id().lower() and user.principal_id and user.client_id
    assert vm.identity.principal_id == read.identity.principal_id


def test_an_identity_that_does_not_exist_is_refused(emulator: EmulatorHandle, clients: SyncClients) -> None:
    identity = cm.VirtualMachineIdentity(type="UserAssigned",
                                         user_assigned_identities={MISSING_IDENTITY: cm.UserAssignedIdentitiesValue()})
    with pytest.raises(HttpResponseError) as caught:
        _vm_with(clients, emulator, "noident", identity=identity)
    assert caught.value.status_code == 400 and caught.value.error.code == "FailedIdentityOperation"
    assert MISSING_IDENTITY in caught.value.error.message
    emulator.add_to_catalog("identity", MISSING_IDENTITY)
    assert _vm_with(clients, emulator, "noident", identity=identity).identity.user_assigned_identities


def test_identity_patch_keeps_the_vm(emulator: EmulatorHandle, clients: SyncClients) -> None:
    vm = make_vm(clients, emulator, "later")
    assert vm.identity is None
    updated = clients.compute.virtual_machines.begin_update(RG, "later", cm.VirtualMachineUpdate(
        identity=cm.VirtualMachineIdentity(type="SystemAssigned"))).result()
    assert updated.identity.principal_id and updated.vm_id == vm.vm_id
    removed = clients.compute.virtual_machines.begin_update(RG, "later", cm.VirtualMachineUpdate(
        identity=cm.VirtualMachineIdentity(type="None"))).result()
    assert removed.identity is None


@pytest.mark.parametrize("image", [
    cm.ImageReference(id=seed_gallery_image_version_id()),
    cm.ImageReference(id=seed_managed_image_id()),
    cm.ImageReference(shared_gallery_image_id=SEED_SHARED_GALLERY_IMAGE),
    cm.ImageReference(community_gallery_image_id=SEED_COMMUNITY_GALLERY_IMAGE),
])
def test_images_that_exist_are_used(emulator: EmulatorHandle, clients: SyncClients, image: cm.ImageReference) -> None:
    _image(image, clients, emulator, "imaged")
    stored = clients.compute.virtual_machines.get(RG, "imaged").storage_profile.image_reference
    assert (stored.id, stored.shared_gallery_image_id, stored.community_gallery_image_id) == \
        (image.id, image.shared_gallery_image_id, image.community_gallery_image_id)


@pytest.mark.parametrize(("image", "status", "code"), [
    (cm.ImageReference(id=seed_gallery_image_version_id().replace("1.0.0", "9.9.9")), 404, "GalleryImageNotFound"),
    (cm.ImageReference(shared_gallery_image_id=SEED_SHARED_GALLERY_IMAGE.replace("1.0.0", "9.9.9")), 404,
     "GalleryImageNotFound"),
    (cm.ImageReference(id=seed_managed_image_id() + "-gone"), 400, "InvalidParameter"),
])
def test_images_that_do_not_exist_are_refused(emulator: EmulatorHandle, clients: SyncClients,
                                              image: cm.ImageReference, status: int, code: str) -> None:
    with pytest.raises(HttpResponseError) as caught:
        _image(image, clients, emulator, "noimage")
    assert (caught.value.status_code, caught.value.error.code) == (status, code)
    assert emulator.resources("virtualMachines") == []


def _agreements(emulator: EmulatorHandle) -> MarketplaceOrderingAgreements:
    return MarketplaceOrderingAgreements(StaticToken(), emulator.subscription_id, base_url=emulator.url,
                                         per_call_policies=[AllowLoopbackHttp()], retry_total=0)


def test_a_plan_needs_its_terms_accepted(emulator: EmulatorHandle, clients: SyncClients) -> None:
    plan = cm.Plan(**SEED_PLAN)
    with pytest.raises(HttpResponseError) as caught:
        _vm_with(clients, emulator, "planned", plan=plan)
    assert caught.value.status_code == 400 and caught.value.error.code == "MarketplacePurchaseEligibilityFailed"
    assert "Legal terms have not been accepted" in caught.value.response.text()
    agreements = _agreements(emulator).marketplace_agreements
    terms = agreements.get("virtualmachine", SEED_PLAN["publisher"], SEED_PLAN["product"], SEED_PLAN["name"])
    assert terms.accepted is False and terms.plan == SEED_PLAN["name"] and terms.signature
    terms.accepted = True
    accepted = agreements.create("virtualmachine", SEED_PLAN["publisher"], SEED_PLAN["product"], SEED_PLAN["name"],
                                 terms)
    assert accepted.accepted is True
    vm = _vm_with(clients, emulator, "planned", plan=plan)
    assert (vm.plan.name, vm.plan.publisher, vm.plan.product) == (SEED_PLAN["name"], SEED_PLAN["publisher"],
                                                                   SEED_PLAN["product"])


def test_boot_diagnostics_serial_log(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator.settings(boot_seconds=0)
    _vm_with(clients, emulator, "diag", diagnostics_profile=cm.DiagnosticsProfile(
        boot_diagnostics=cm.BootDiagnostics(enabled=True)))
    stored = clients.compute.virtual_machines.get(RG, "diag")
    assert stored.diagnostics_profile.boot_diagnostics.enabled is True
    assert stored.diagnostics_profile.boot_diagnostics.storage_uri is None
    data = clients.compute.virtual_machines.retrieve_boot_diagnostics_data(RG, "diag",
                                                                           sas_uri_expiration_time_in_minutes=60)
    assert data.console_screenshot_blob_uri.startswith(emulator.url)
    with urllib.request.urlopen(data.serial_console_log_blob_uri, timeout=10) as response:
        log = response.read().decode()
    assert "Linux version" in log and log.rstrip().endswith("diag login:")


def test_boot_diagnostics_off_is_refused(emulator: EmulatorHandle, clients: SyncClients) -> None:
    make_vm(clients, emulator, "nodiag")
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.retrieve_boot_diagnostics_data(RG, "nodiag")
    assert caught.value.status_code == 409 and "Boot diagnostics is not enabled" in caught.value.error.message
