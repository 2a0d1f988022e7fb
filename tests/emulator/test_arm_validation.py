"""ARM's request rules: names per type, tag limits, JSON types, body size and depth — 400s in ARM's shape."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import quote

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute import models as cm
from azure.mgmt.network import models as nm

from tests.emulator.builders import RG, empty_disk, vm_body
from tests.emulator.steps import make_nic
from tests.support.arm_http import ArmAnswer, arm, group_path
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def provider_path(emulator: EmulatorHandle, kind: str, name: str) -> str:
    """The path of a resource named `name` as sent: quoted, except that a `%00` in it stays an escape."""
    namespace = "Microsoft.Compute" if kind in ("virtualMachines", "disks") else "Microsoft.Network"
    return f"{group_path(emulator, RG)}/providers/{namespace}/{kind}/{quote(name, safe='%')}"


def rg_path(emulator: EmulatorHandle, name: str) -> str:
    return group_path(emulator, quote(name, safe="%()"))


def raw(emulator: EmulatorHandle, method: str, path: str, data: bytes) -> ArmAnswer:
    """Send bytes as they are (arm() would serialize them as JSON)."""
    request = urllib.request.Request(f"{emulator.url}{path}?api-version=2024-07-01", data=data, method=method,
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer t"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return ArmAnswer(response.status, {}, json.loads(response.read() or b"null"))
    except urllib.error.HTTPError as error:
        return ArmAnswer(error.code, {}, json.loads(error.read() or b"null"))


def assert_refused(answer: ArmAnswer, status: int, code: str) -> dict[str, Any]:
    assert (answer.status, answer.error_code) == (status, code), answer.body
    return answer.body["error"]


NIC = {"location": "westeurope", "properties": {"ipConfigurations": [{"name": "ipconfig1"}]}}
DISK = {"location": "westeurope", "properties": {"creationData": {"createOption": "Empty"}, "diskSizeGB": 4}}


@pytest.mark.parametrize("name", ["bad.", "a b", "a%00b", "x" * 91, "semi;colon"])
def test_resource_group_names_follow_arms_rules(emulator: EmulatorHandle, name: str) -> None:
    assert_refused(arm(emulator, "PUT", rg_path(emulator, name), {"location": "westeurope"}),
                   400, "InvalidResourceGroup")


def test_resource_group_names_may_use_parentheses_periods_and_unicode(emulator: EmulatorHandle) -> None:
    assert arm(emulator, "PUT", rg_path(emulator, "rg.(prod)_ü-1"), {"location": "westeurope"}).status == 201


@pytest.mark.parametrize(("kind", "name"), [
    ("networkInterfaces", "-nic"), ("networkInterfaces", "nic."), ("networkInterfaces", "a%00b"),
    ("networkInterfaces", "x" * 81), ("virtualNetworks", "v"), ("virtualNetworks", "x" * 65),
])
def test_network_names_follow_the_network_providers_rule(emulator: EmulatorHandle, kind: str, name: str) -> None:
    body = NIC if kind == "networkInterfaces" else {"location": "westeurope"}
    error = assert_refused(arm(emulator, "PUT", provider_path(emulator, kind, name), body), 400, "InvalidResourceName")
    assert "It must begin with a word character" in error["message"]
    assert all(r["name"] not in (name, name.replace("%00", "\x00")) for r in emulator.resources(kind))


def test_subnet_names_are_checked_inline_and_standalone(emulator: EmulatorHandle) -> None:
    vnet = {"location": "westeurope", "properties": {"addressSpace": {"addressPrefixes": ["10.1.0.0/16"]},
                                                     "subnets": [{"name": "ok."}]}}
    assert_refused(arm(emulator, "PUT", provider_path(emulator, "virtualNetworks", "v2"), vnet),
                   400, "InvalidResourceName")
    path = provider_path(emulator, "virtualNetworks", "azmc-vnet") + "/subnets/_x.1_"
    assert arm(emulator, "PUT", path, {"properties": {"addressPrefix": "10.0.9.0/24"}}).status == 201
    assert_refused(arm(emulator, "PUT", path.replace("_x.1_", "x-"), {"properties": {"addressPrefix": "10.0.8.0/24"}}),
                   400, "InvalidResourceName")


@pytest.mark.parametrize("name", ["d.1", "x" * 81, "a b"])
def test_disk_names_are_letters_digits_underscores_hyphens(emulator: EmulatorHandle, name: str) -> None:
    assert_refused(arm(emulator, "PUT", provider_path(emulator, "disks", name), DISK), 400, "InvalidResourceName")


@pytest.mark.parametrize("name", ["_vm", "vm.", "vm-", "a@b", "x" * 65])
def test_vm_resource_names(emulator: EmulatorHandle, clients: SyncClients, name: str) -> None:
    nic_id = make_nic(clients, emulator, "n1")
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(RG, name, vm_body("okname", nic_id))
    assert (caught.value.status_code, caught.value.error.code) == (400, "InvalidResourceName")
    assert emulator.resources("disks") == []


@pytest.mark.parametrize(("computer_name", "windows", "ok"), [
    ("x" * 64, False, True), ("x" * 65, False, False), ("has_underscore", False, False), ("a.b", False, True),
    ("ends-", False, False), ("win-fifteen-ch1", True, True), ("win-sixteen-char", True, False),
    ("12345", True, False), ("a.b", True, False),
])
def test_computer_names_follow_linux_and_windows_rules(emulator: EmulatorHandle, clients: SyncClients,
                                                       computer_name: str, windows: bool, ok: bool) -> None:
    nic_id = make_nic(clients, emulator, "cn")
    body = vm_body("host-vm", nic_id)
    body.os_profile.computer_name = computer_name
    if windows:
        body.os_profile.linux_configuration = None
        body.os_profile.windows_configuration = cm.WindowsConfiguration()
    if ok:
        assert clients.compute.virtual_machines.begin_create_or_update(RG, "host-vm", body).result().os_profile.\
            computer_name == computer_name
        return
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(RG, "host-vm", body)
    assert (caught.value.status_code, caught.value.error.code) == (400, "InvalidParameter")
    assert caught.value.error.message.startswith("Windows computer name" if windows else "Linux host name")


def tags_answer(emulator: EmulatorHandle, tags: Any) -> ArmAnswer:
    return arm(emulator, "PUT", provider_path(emulator, "disks", "tagged"), {**DISK, "tags": tags})


@pytest.mark.parametrize(("tags", "code"), [
    ({f"k{i}": "v" for i in range(51)}, "InvalidTags"),
    ({"a/b<c>": "v"}, "InvalidTagNameCharacters"),
    ({"tab\there": "v"}, "InvalidTagNameCharacters"),
    ({"k" * 513: "v"}, "InvalidTagName"),
    ({" ": "v"}, "InvalidTagName"),
    ({"k": "v" * 257}, "InvalidTagValueLength"),
    ("just-a-string", "InvalidRequestContent"),
    ({"k": 5}, "InvalidRequestContent"),
    ({"k": {"nested": "x"}}, "InvalidRequestContent"),
])
def test_tags_over_arms_limits_are_refused(emulator: EmulatorHandle, tags: Any, code: str) -> None:
    assert_refused(tags_answer(emulator, tags), 400, code)
    assert emulator.resources("disks") == []


def test_tags_at_arms_limits_are_accepted(emulator: EmulatorHandle) -> None:
    tags = {f"k{i}": "v" for i in range(49)} | {"k" * 512: "v" * 256}
    assert tags_answer(emulator, tags).status == 202
    assert emulator.resources("disks")[0]["tags"] == tags


def test_every_update_path_checks_tags(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = make_nic(clients, emulator, "tg")
    clients.compute.virtual_machines.begin_create_or_update(RG, "tg-vm", vm_body("tg-vm", nic_id)).result()
    bad = {"a&b": "x"}
    for call in (
        lambda: clients.network.network_interfaces.update_tags(RG, "tg", nm.TagsObject(tags=bad)),
        lambda: clients.compute.virtual_machines.begin_update(RG, "tg-vm", cm.VirtualMachineUpdate(tags=bad)),
        lambda: clients.compute.disks.begin_update(RG, "tg-vm-os-disk", cm.DiskUpdate(tags=bad)),
    ):
        with pytest.raises(HttpResponseError) as caught:
            call()
        assert caught.value.error.code == "InvalidTagNameCharacters"
    assert_refused(arm(emulator, "PUT", group_path(emulator, RG), {"location": "westeurope", "tags": bad}),
                   400, "InvalidTagNameCharacters")
    assert all(r["tags"] != bad for r in emulator.resources())


@pytest.mark.parametrize(("kind", "body", "path"), [
    ("virtualMachines", {"location": "westeurope", "properties": {"hardwareProfile": "big"}},
     "properties.hardwareProfile"),
    ("virtualMachines", {"location": "westeurope", "properties": {"storageProfile": {"dataDisks": {"lun": 0}}}},
     "properties.storageProfile.dataDisks"),
    ("virtualMachines", {"location": "westeurope", "properties": {"storageProfile": {"dataDisks": [
        {"lun": "zero"}]}}}, "properties.storageProfile.dataDisks[0].lun"),
    ("networkInterfaces", {"location": "westeurope", "properties": {"ipConfigurations": "ipconfig1"}},
     "properties.ipConfigurations"),
    ("disks", {"location": "westeurope", "properties": {"diskSizeGB": "8"}}, "properties.diskSizeGB"),
    ("disks", {"location": "westeurope", "properties": {"diskSizeGB": True}}, "properties.diskSizeGB"),
    ("virtualNetworks", {"location": "westeurope", "properties": {"addressSpace": {"addressPrefixes": "10/8"}}},
     "properties.addressSpace.addressPrefixes"),
    ("virtualNetworks", {"location": ["westeurope"]}, "location"),
    ("disks", {"location": "westeurope", "properties": "all of them"}, "properties"),
])
def test_wrong_json_types_are_invalid_request_content(emulator: EmulatorHandle, kind: str, body: dict,
                                                      path: str) -> None:
    error = assert_refused(arm(emulator, "PUT", provider_path(emulator, kind, "typed"), body),
                           400, "InvalidRequestContent")
    assert error["target"] == path and f"Path '{path}'" in error["message"]


def test_a_body_that_is_not_an_object_is_refused(emulator: EmulatorHandle) -> None:
    for body in ([DISK], "disk", 7):
        assert_refused(arm(emulator, "PUT", provider_path(emulator, "disks", "nobj"), body),
                       400, "InvalidRequestContent")


def test_an_address_prefix_must_be_cidr(emulator: EmulatorHandle) -> None:
    body = {"location": "westeurope", "properties": {"addressSpace": {"addressPrefixes": ["10.0.0.0/33"]}}}
    assert_refused(arm(emulator, "PUT", provider_path(emulator, "virtualNetworks", "cidr"), body),
                   400, "InvalidAddressPrefixFormat")


def test_a_body_over_4_mb_is_refused_not_stored(emulator: EmulatorHandle) -> None:
    body = json.dumps({**DISK, "tags": {"big": "x" * (4 * 1024 * 1024)}}).encode()
    answer = raw(emulator, "PUT", provider_path(emulator, "disks", "huge"), body)
    assert_refused(answer, 413, "RequestContentTooLarge")
    assert emulator.resources("disks") == []


@pytest.mark.parametrize("data", [
    b'{"location": "westeurope", "properties": {"diskSizeGB": NaN}}',
    b'{"location": "westeurope", "properties": {"diskSizeGB": Infinity}}',
    b'{"location": "westeurope", "properties": ' + b'{"a": ' * 100 + b"1" + b"}" * 101,
    b'{"location": "westeurope", "properties": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    b'{"location": "westeurope", ',
    b"\xff\xfe not utf-8",
])
def test_json_arm_cannot_read_is_invalid_request_content(emulator: EmulatorHandle, data: bytes) -> None:
    assert_refused(raw(emulator, "PUT", provider_path(emulator, "disks", "json"), data), 400, "InvalidRequestContent")
    assert emulator.resources("disks") == []


def test_empty_disk_still_works_through_the_sdk(clients: SyncClients) -> None:
    """The rules refuse what Azure refuses, not what the SDK sends."""
    assert clients.compute.disks.begin_create_or_update(RG, "plain_disk-1", empty_disk()).result().disk_size_gb == 8


@pytest.mark.parametrize(("lun", "size", "parameter"), [(64, 8, "dataDisk.lun"), (-1, 8, "dataDisk.lun"),
                                                        (0, 0, "diskSizeGB"), (0, 40000, "diskSizeGB")])
def test_luns_and_disk_sizes_out_of_range(emulator: EmulatorHandle, clients: SyncClients, lun: int, size: int,
                                          parameter: str) -> None:
    nic_id = make_nic(clients, emulator, "lr")
    body = vm_body("lr-vm", nic_id)
    body.storage_profile.data_disks[0].lun, body.storage_profile.data_disks[0].disk_size_gb = lun, size
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(RG, "lr-vm", body)
    assert (caught.value.error.code, caught.value.error.target) == ("InvalidParameter", parameter)
    assert emulator.resources("disks") == []
    assert_refused(arm(emulator, "PUT", provider_path(emulator, "disks", "big"),
                       {**DISK, "properties": {**DISK["properties"], "diskSizeGB": 40000}}), 400, "InvalidParameter")


def test_a_disk_a_vm_creates_is_named_by_the_disk_rule(emulator: EmulatorHandle, clients: SyncClients) -> None:
    nic_id = make_nic(clients, emulator, "dn")
    body = vm_body("dn-vm", nic_id)
    body.storage_profile.data_disks[0].name = "d" * 81
    with pytest.raises(HttpResponseError) as caught:
        clients.compute.virtual_machines.begin_create_or_update(RG, "dn-vm", body)
    assert (caught.value.status_code, caught.value.error.code) == (400, "InvalidResourceName")
    assert emulator.resources("disks") == [] and emulator.resources("virtualMachines") == []
