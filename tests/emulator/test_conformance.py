"""Conformance: the emulator's answers to Microsoft's REST examples carry the examples' keys.

Structure, not values: every key of the example response (recursively; first element of lists) must be
in the emulator's response, and the status code must be one the example lists. Exclusions are explicit
and name the Azure feature the emulator does not model.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from tests.emulator import conformance_setup as setup
from tests.support.arm_http import ArmAnswer, arm
from tests.support.emulator import EmulatorHandle

EXAMPLES = Path(__file__).parent / "rest_examples"
SUB = "/subscriptions/{subscriptionId}"
RG = SUB + "/resourceGroups/{resourceGroupName}/providers"
GRAPH = "/providers/Microsoft.ResourceGraph/resources"

# Keys (dotted paths, `[]` = list items) of features the emulator does not model, per example.
EXCLUDED: dict[str, set[str]] = {
    # VM extensions and VMSS-managed VMs are not emulated.
    "compute/VirtualMachine_Get.json": {"resources", "managedBy"},
    # No guest agent, extensions, patching or boot diagnostics blobs.
    "compute/VirtualMachine_Get_InstanceView.json": {
        "extensions", "patchStatus", "vmAgent.extensionHandlers", "bootDiagnostics"},
    # The usages of a location fit one page: no nextLink (ARM sends it only when another page follows).
    "compute/Usage_List_MaximumSet_Gen.json": {"nextLink"},
    # Load balancers are not emulated, so nothing but NICs shows up in a subnet's ipConfigurations.
    "network/VirtualNetworkGet.json": {"properties.subnets[].properties.ipConfigurations"},
}
# VMs that create their own NICs (networkInterfaceConfigurations) are not emulated: azmc creates NICs
# itself, and the emulator answers such a PUT with a 400 that says so.
NOT_EMULATED = {"compute/VirtualMachine_Create_WithNetworkInterfaceConfiguration.json"}


@dataclass(frozen=True)
class Case:
    file: str
    method: str
    path: str
    body: str | None = None  # the example parameter that holds the request body
    before: str = ""  # "resource": the example's 200 body PUT first; "vm"/"disk"/"nic"/"vnet"/"list"/"graph"


CASES = [
    Case("compute/Disk_Create_Empty.json", "PUT", RG + "/Microsoft.Compute/disks/{diskName}", "disk"),
    Case("compute/Disk_Delete.json", "DELETE", RG + "/Microsoft.Compute/disks/{diskName}", before="disk"),
    Case("compute/Disk_Get.json", "GET", RG + "/Microsoft.Compute/disks/{diskName}", before="resource"),
    *[Case(f"compute/VirtualMachine_Create_{n}.json", "PUT", RG + "/Microsoft.Compute/virtualMachines/{vmName}",
           "parameters") for n in ("LinuxVmWithPatchSettingModeOfImageDefault", "WithDiskControllerType",
                                   "WithEmptyDataDisks")],
    Case("compute/VirtualMachine_Delete_Force.json", "DELETE", RG + "/Microsoft.Compute/virtualMachines/{vmName}",
         before="vm"),
    Case("compute/VirtualMachine_Get.json", "GET", RG + "/Microsoft.Compute/virtualMachines/{vmName}",
         before="resource"),
    Case("compute/VirtualMachine_Get_InstanceView.json", "GET",
         RG + "/Microsoft.Compute/virtualMachines/{vmName}/instanceView", before="vm"),
    Case("compute/VirtualMachine_ListBySubscription_ByLocation.json", "GET",
         SUB + "/providers/Microsoft.Compute/locations/{location}/virtualMachines", before="list"),
    Case("compute/Usage_List_MaximumSet_Gen.json", "GET",
         SUB + "/providers/Microsoft.Compute/locations/{location}/usages"),
    *[Case(f"compute/VirtualMachine_{verb}_{n}_Gen.json", "POST",
           RG + f"/Microsoft.Compute/virtualMachines/{{vmName}}/{verb[0].lower()}{verb[1:]}", before="vm")
      for verb, n in (("PowerOff", "MinimumSet"), ("Restart", "MinimumSet"), ("Redeploy", "MaximumSet"))],
    Case("network/NetworkInterfaceCreate.json", "PUT",
         RG + "/Microsoft.Network/networkInterfaces/{networkInterfaceName}", "parameters"),
    Case("network/NetworkInterfaceDelete.json", "DELETE",
         RG + "/Microsoft.Network/networkInterfaces/{networkInterfaceName}", before="nic"),
    Case("network/NetworkInterfaceGet.json", "GET",
         RG + "/Microsoft.Network/networkInterfaces/{networkInterfaceName}", before="resource"),
    Case("network/NetworkInterfaceList.json", "GET", RG + "/Microsoft.Network/networkInterfaces", before="list"),
    Case("network/SubnetCreate.json", "PUT",
         RG + "/Microsoft.Network/virtualNetworks/{virtualNetworkName}/subnets/{subnetName}", "subnetParameters",
         before="vnet"),
    Case("network/SubnetGet.json", "GET",
         RG + "/Microsoft.Network/virtualNetworks/{virtualNetworkName}/subnets/{subnetName}", before="resource"),
    Case("network/VirtualNetworkCreate.json", "PUT", RG + "/Microsoft.Network/virtualNetworks/{virtualNetworkName}",
         "parameters"),
    Case("network/VirtualNetworkGet.json", "GET", RG + "/Microsoft.Network/virtualNetworks/{virtualNetworkName}",
         before="resource"),
    *[Case(f"resourcegraph/{n}.json", "POST", GRAPH, "query", before="graph")
      for n in ("ResourcesBasicQuery", "ResourcesFilterQuery", "ResourcesFirstPageQuery", "ResourcesNextPageQuery",
                "ResourcesPropertiesQuery", "ResourcesSummarizeQuery")],
]


def missing_keys(example: Any, actual: Any, excluded: set[str], where: str = "") -> list[str]:
    if where.lstrip(".") in excluded:
        return []
    if isinstance(example, dict):
        if not isinstance(actual, dict):
            return [where or "<root>"]
        found: list[str] = []
        for key, value in example.items():
            path = f"{where}.{key}" if where else key
            if key not in actual:
                if path not in excluded:
                    found.append(path)
                continue
            if key != "tags":  # user data: its keys are values, not structure
                found += missing_keys(value, actual[key], excluded, path)
        return found
    if isinstance(example, list) and example and isinstance(example[0], (dict, list)):
        if not isinstance(actual, list) or not actual:
            return [f"{where}[]"]
        return missing_keys(example[0], actual[0], excluded, f"{where}[]")
    return []


def prepare(handle: EmulatorHandle, case: Case, example: dict[str, Any], path: str) -> None:
    params = example["parameters"]
    if "resourceGroupName" in params:
        setup.group(handle, params["resourceGroupName"])
    if case.body:
        setup.references(handle, params[case.body])
    if case.before == "resource":
        if "/subnets/" in path:
            setup.subnet(handle, path)
        setup.like_example(handle, path, example["responses"]["200"]["body"])
    elif case.before == "list":
        for item in example["responses"]["200"]["body"]["value"]:
            setup.group(handle, item["id"].split("/")[4])
            setup.like_example(handle, item["id"], item)
    elif case.before == "vm":
        setup.minimal_vm(handle, re.sub(r"/(instanceView|powerOff|restart|redeploy)$", "", path))
    elif case.before == "disk":
        setup.disk(handle, path)
    elif case.before == "nic":
        setup.nic(handle, path)
    elif case.before == "vnet":
        setup.subnet(handle, path.rsplit("/subnets/", 1)[0] + "/subnets/default")
    elif case.before == "graph":
        for i in range(5):
            setup.minimal_vm(handle, f"/subscriptions/{handle.subscription_id}/resourceGroups/graph/providers/"
                                     f"Microsoft.Compute/virtualMachines/test-vm{i}")


def send(handle: EmulatorHandle, case: Case, params: dict[str, Any], path: str) -> ArmAnswer:
    query = {k: v for k, v in params.items() if k.startswith("$") or k == "forceDeletion"}
    body = params[case.body] if case.body else None
    if case.file.endswith("ResourcesNextPageQuery.json"):
        # The example's skip token is opaque to us; use the one our own first page returns.
        first = arm(handle, "POST", GRAPH, {**body, "options": {"$top": 3}}).body
        body = {**body, "options": {"$skipToken": first["$skipToken"]}}
    suffix = ("&" + urlencode(query)) if query else ""
    return arm(handle, case.method, quote(path) + (f"?{suffix[1:]}" if suffix else ""), body,
               api_version=params.get("api-version", "2024-01-01"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.file.split("/")[-1].removesuffix(".json"))
def test_example(emulator: EmulatorHandle, case: Case) -> None:
    example = setup.localize(emulator, json.loads((EXAMPLES / case.file).read_text()))
    params = example["parameters"]
    params["subscriptionId"] = emulator.subscription_id
    if case.body and "subscriptions" in (params[case.body] or {}):
        params[case.body]["subscriptions"] = [emulator.subscription_id]
    path = case.path.format(**params)
    prepare(emulator, case, example, path)
    answer = send(emulator, case, params, path)
    assert str(answer.status) in example["responses"], f"{answer.status} {answer.body}"
    expected = (example["responses"][str(answer.status)] or {}).get("body")
    if expected is not None:
        assert missing_keys(expected, answer.body, EXCLUDED.get(case.file, set())) == []


def test_not_emulated_examples_are_refused_with_a_reason(emulator: EmulatorHandle) -> None:
    for file in NOT_EMULATED:
        example = setup.localize(emulator, json.loads((EXAMPLES / file).read_text()))
        params = example["parameters"]
        setup.group(emulator, params["resourceGroupName"])
        params["subscriptionId"] = emulator.subscription_id
        path = RG.format(**params) + f"/Microsoft.Compute/virtualMachines/{params['vmName']}"
        answer = arm(emulator, "PUT", quote(path), params["parameters"])
        assert answer.status == 400 and "not supported by the azmc emulator" in answer.body["error"]["message"]


def test_every_example_is_covered() -> None:
    covered = {c.file for c in CASES} | NOT_EMULATED
    on_disk = {str(p.relative_to(EXAMPLES)) for p in EXAMPLES.glob("*/*.json")}
    assert on_disk == covered
