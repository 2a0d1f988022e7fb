"""customData and userData as Azure keeps them, through the real SDK: customData never read back,
userData only with `$expand=userData`, both base64 of at most 65,535 bytes, customData fixed at creation."""

from __future__ import annotations

import base64
import hashlib

import pytest
from azure.core.exceptions import HttpResponseError

from tests.emulator.builders import RG, vm_body
from tests.emulator.steps import make_nic
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

SCRIPT = b"#cloud-config\nruncmd: [echo join-token-s3cr3t]\n"
USER = b"node-labels: gpu=true token=u53r-s3cr3t"


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _create(clients: SyncClients, emulator: EmulatorHandle, name: str, custom: str | None, user: str | None):
    body = vm_body(name, make_nic(clients, emulator, f"{name}-nic"), data_disks=0)
    body.os_profile.custom_data = custom
    body.user_data = user
    return clients.compute.virtual_machines.begin_create_or_update(RG, name, body).result()


def test_custom_data_is_kept_but_never_returned(emulator: EmulatorHandle, clients: SyncClients) -> None:
    created = _create(clients, emulator, "boot1", _b64(SCRIPT), _b64(USER))
    assert created.os_profile.custom_data is None and created.user_data is None
    plain = clients.compute.virtual_machines.get(RG, "boot1")
    assert plain.os_profile.custom_data is None and plain.user_data is None
    listed = next(iter(clients.compute.virtual_machines.list(RG)))
    assert listed.os_profile.custom_data is None and listed.user_data is None
    expanded = clients.compute.virtual_machines.get(RG, "boot1", expand="userData")
    assert base64.b64decode(expanded.user_data) == USER
    assert expanded.os_profile.custom_data is None
    (vm,) = emulator.resources("virtualMachines")
    assert vm["customDataSha256"] == hashlib.sha256(SCRIPT).hexdigest()
    assert vm["userDataSha256"] == hashlib.sha256(USER).hexdigest()


def test_custom_data_cannot_change_but_user_data_can(emulator: EmulatorHandle, clients: SyncClients) -> None:
    _create(clients, emulator, "boot2", _b64(SCRIPT), _b64(USER))
    again = vm_body("boot2", clients.network.network_interfaces.get(RG, "boot2-nic").id, data_disks=0)
    again.os_profile.custom_data = _b64(b"another script")
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(RG, "boot2", again)
    assert caught.value.status_code == 409 and caught.value.error.code == "PropertyChangeNotAllowed"
    assert "customData" in caught.value.error.message
    again.os_profile.custom_data = _b64(SCRIPT)  # the same customData again is fine, userData may change
    again.user_data = _b64(b"new user data")
    clients.compute.virtual_machines.begin_create_or_update(RG, "boot2", again).result()
    expanded = clients.compute.virtual_machines.get(RG, "boot2", expand="userData")
    assert base64.b64decode(expanded.user_data) == b"new user data"
    (vm,) = emulator.resources("virtualMachines")
    assert vm["customDataSha256"] == hashlib.sha256(SCRIPT).hexdigest()


@pytest.mark.parametrize(("custom", "user", "target"), [
    ("not base64!", None, "customData"),
    (_b64(b"x" * 65536), None, "customData"),
    (None, _b64(b"x" * 65536), "userData"),
    (None, "%%%", "userData"),
])
def test_bad_bootstrap_data_is_refused(emulator: EmulatorHandle, clients: SyncClients,
                                       custom: str | None, user: str | None, target: str) -> None:
    with pytest.raises(HttpResponseError) as caught:
        _create(clients, emulator, "boot3", custom, user)
    assert caught.value.status_code == 400 and caught.value.error.code == "InvalidParameter"
    assert caught.value.error.target == target
    assert emulator.resources("virtualMachines") == []


def test_largest_custom_data_azure_takes(emulator: EmulatorHandle, clients: SyncClients) -> None:
    _create(clients, emulator, "boot4", _b64(b"y" * 65535), None)
    (vm,) = emulator.resources("virtualMachines")
    assert vm["customDataSha256"] == hashlib.sha256(b"y" * 65535).hexdigest()
