"""Preparing the emulator so a Microsoft REST example request meets the state the example assumes."""

from __future__ import annotations

import copy
import json
import re
from typing import Any
from urllib.parse import quote

from tests.support.arm_http import ArmAnswer, arm
from tests.support.emulator import EmulatorHandle

_SUBSCRIPTION = re.compile(r"/subscriptions/[^/\"]+", re.IGNORECASE)
_SUBNET = re.compile(r"^(/subscriptions/[^/]+/resourceGroups/([^/]+)/providers/Microsoft\.Network/virtualNetworks/"
                     r"[^/]+)/subnets/[^/]+$", re.IGNORECASE)
_NIC = re.compile(r"^/subscriptions/[^/]+/resourceGroups/([^/]+)/providers/Microsoft\.Network/networkInterfaces/"
                  r"[^/]+$", re.IGNORECASE)
# Examples name referenced resources with placeholders ("/networkInterfaces/{existing-nic-name}"),
# which no real name could be: the braces go.
_PLACEHOLDER = re.compile(r"/\{([A-Za-z0-9_-]+)\}")
# ... and values too ("publisher": "{image_publisher}"), which Azure's name rules refuse as well.
_PLACEHOLDER_VALUE = re.compile(r'"\{([A-Za-z0-9_-]+)\}"')
LOCATION = "westus"


def localize(handle: EmulatorHandle, value: Any) -> Any:
    """Point every subscription in the example at the emulator's subscription; placeholder names made real."""
    text = _SUBSCRIPTION.sub(f"/subscriptions/{handle.subscription_id}", json.dumps(value))
    return json.loads(_PLACEHOLDER_VALUE.sub(r'"\1"', _PLACEHOLDER.sub(r"/\1", text)))


def call(handle: EmulatorHandle, method: str, path: str, body: Any = None, query: str = "") -> ArmAnswer:
    answer = arm(handle, method, quote(path) + (f"?{query}" if query else ""), body)
    assert answer.status < 400, f"{method} {path}: {answer.status} {answer.body}"
    wait_idle(handle)
    return answer


def wait_idle(handle: EmulatorHandle) -> None:
    """At time scale 0 operations finish at once; give the event loop a beat to release them."""
    for _ in range(200):
        if not any("runningOperation" in r for r in handle.resources()):
            return
    raise AssertionError("operations still running")


def group(handle: EmulatorHandle, name: str) -> None:
    call(handle, "PUT", f"/subscriptions/{handle.subscription_id}/resourceGroups/{name}", {"location": LOCATION})


def subnet(handle: EmulatorHandle, subnet_id: str) -> None:
    found = _SUBNET.match(subnet_id)
    assert found, subnet_id
    group(handle, found.group(2))
    if arm(handle, "GET", quote(found.group(1))).status == 404:
        call(handle, "PUT", found.group(1), {"location": LOCATION,
                                              "properties": {"addressSpace": {"addressPrefixes": ["10.0.0.0/8"]}}})
    if arm(handle, "GET", quote(subnet_id)).status == 404:
        call(handle, "PUT", subnet_id, {"properties": {"addressPrefix": "10.0.0.0/16"}})


def nic(handle: EmulatorHandle, nic_id: str) -> None:
    found = _NIC.match(nic_id)
    assert found, nic_id
    group(handle, found.group(1))
    if arm(handle, "GET", quote(nic_id)).status == 404:
        call(handle, "PUT", nic_id, {"location": LOCATION, "properties": {"ipConfigurations": [
            {"name": "ipconfig1", "properties": {"subnet": {"id": handle.subnet_id}}}]}})


def network_resource(handle: EmulatorHandle, resource_id: str) -> None:
    """An NSG, ASG, public IP or load balancer backend pool a NIC example refers to (its load balancer with it)."""
    group(handle, resource_id.split("/")[4])
    head, _, pool = resource_id.partition("/backendAddressPools/")
    if arm(handle, "GET", quote(head)).status == 404:
        props = {"backendAddressPools": [{"name": pool}]} if pool else {}
        call(handle, "PUT", head, {"location": LOCATION, "properties": props})


def disk(handle: EmulatorHandle, disk_id: str, size_gb: int = 10) -> None:
    if arm(handle, "GET", quote(disk_id)).status == 404:
        call(handle, "PUT", disk_id, {"location": LOCATION, "properties": {
            "creationData": {"createOption": "Empty"}, "diskSizeGB": size_gb}})


def references(handle: EmulatorHandle, body: Any) -> None:
    """Create the subnets, NICs, attach-disks and placement resources an example body refers to."""
    props = body.get("properties", {}) if isinstance(body, dict) else {}
    for ipc in props.get("ipConfigurations", []):
        ref = (ipc.get("properties") or {}).get("subnet", {}).get("id")
        if ref:
            subnet(handle, ref)
        ipc_props = ipc.get("properties") or {}
        for field in ("publicIPAddress", "applicationSecurityGroups", "loadBalancerBackendAddressPools"):
            refs = ipc_props.get(field) or []
            for one in refs if isinstance(refs, list) else [refs]:
                network_resource(handle, one["id"])
    for frontend in props.get("frontendIPConfigurations", []):  # a load balancer's
        frontend_props = frontend.get("properties") or {}
        if (frontend_props.get("subnet") or {}).get("id"):
            subnet(handle, frontend_props["subnet"]["id"])
        if (frontend_props.get("publicIPAddress") or {}).get("id"):
            network_resource(handle, frontend_props["publicIPAddress"]["id"])
    if (props.get("networkSecurityGroup") or {}).get("id"):
        network_resource(handle, props["networkSecurityGroup"]["id"])
    for ref in (props.get("networkProfile") or {}).get("networkInterfaces", []):
        nic(handle, ref["id"])
    storage = props.get("storageProfile") or {}
    for entry in storage.get("dataDisks", []):
        if entry.get("createOption", "").lower() == "attach":
            disk(handle, entry["managedDisk"]["id"], entry.get("diskSizeGB", 10))
    for entry in [storage.get("osDisk") or {}, *storage.get("dataDisks", [])]:
        encryption_set = ((entry.get("managedDisk") or {}).get("diskEncryptionSet") or {}).get("id")
        if encryption_set:
            handle.add_reference(encryption_set)
    # The Compute resources a VM may name and the emulator checks exist (emulator/compute/compute_references.py).
    for key in ("proximityPlacementGroup", "availabilitySet"):
        ref = (props.get(key) or {}).get("id")
        if ref:
            handle.add_reference(ref)
    group_ref = ((props.get("capacityReservation") or {}).get("capacityReservationGroup") or {}).get("id")
    if group_ref:
        handle.add_reference(group_ref)
    for encryption_set in ((props.get("encryption") or {}).get("diskEncryptionSetId"),
                           (props.get("securityProfile") or {}).get("secureVMDiskEncryptionSetId")):
        if encryption_set:  # a disk's
            handle.add_reference(encryption_set)
    image = (props.get("storageProfile") or {}).get("imageReference") or {}
    for key in ("id", "sharedGalleryImageId", "communityGalleryImageId"):
        if image.get(key):  # a custom or gallery image the VM is made from
            handle.add_to_catalog("image", image[key])
    identity = (body.get("identity") or {}) if isinstance(body, dict) else {}
    for identity_id in identity.get("userAssignedIdentities") or {}:
        handle.add_to_catalog("identity", identity_id)  # a user-assigned identity the resource is given
    plan = body.get("plan") if isinstance(body, dict) else None
    if plan and {"publisher", "product", "name"} <= set(plan):  # a marketplace image's terms, accepted
        handle.add_to_catalog("agreement", {**{k: plan[k] for k in ("publisher", "product", "name")}, "accepted": True})


def minimal_vm(handle: EmulatorHandle, vm_id: str, extra_data_disk: str | None = None) -> None:
    """A VM with its own NIC (and optionally an attached existing disk)."""
    group(handle, vm_id.split("/")[4])
    nic_id = vm_id.replace("Microsoft.Compute/virtualMachines", "Microsoft.Network/networkInterfaces") + "-nic"
    nic(handle, nic_id)
    data_disks = []
    if extra_data_disk:
        data_disks.append({"lun": 0, "createOption": "Attach", "managedDisk": {"id": extra_data_disk}})
    call(handle, "PUT", vm_id, {"location": LOCATION, "properties": {
        "hardwareProfile": {"vmSize": "Standard_D2s_v5"},
        "storageProfile": {"imageReference": {"publisher": "Canonical", "offer": "ubuntu", "sku": "server",
                                              "version": "latest"},
                           "osDisk": {"createOption": "FromImage"}, "dataDisks": data_disks},
        "osProfile": {"computerName": "vm", "adminUsername": "azmc"},
        "networkProfile": {"networkInterfaces": [{"id": nic_id, "properties": {"deleteOption": "Delete"}}]},
        "diagnosticsProfile": {"bootDiagnostics": {"enabled": True,
                                                   "storageUri": "https://azmcdiag.blob.core.windows.net/"}},
    }})


def like_example(handle: EmulatorHandle, path: str, body: dict[str, Any]) -> None:
    """PUT the example's own response body (as it was before the request: no data disk marked to detach), then
    recreate the attachments it shows."""
    body = copy.deepcopy(body)
    for entry in ((body.get("properties") or {}).get("storageProfile") or {}).get("dataDisks") or []:
        entry.pop("toBeDetached", None)
        entry.pop("detachOption", None)
    references(handle, body)
    call(handle, "PUT", path, body)
    attached_vm = (body.get("properties") or {}).get("virtualMachine", {}).get("id")
    if attached_vm:  # a NIC shown attached to a VM
        minimal_vm_with_nic(handle, attached_vm, path)
    for extension in body.get("resources") or []:  # a VM shown with its extensions
        call(handle, "PUT", f"{path}/extensions/{extension['name']}", extension)
    if body.get("managedBy") and "/disks/" in path:  # a disk shown attached to a VM
        minimal_vm(handle, body["managedBy"], extra_data_disk=path)
    holder = ((body.get("properties") or {}).get("ipConfiguration") or {}).get("id", "")
    if "/publicIPAddresses/" in path and "/networkInterfaces/" in holder:  # a public IP shown on a NIC
        nic_id, _, ipc_name = holder.partition("/ipConfigurations/")
        group(handle, nic_id.split("/")[4])
        call(handle, "PUT", nic_id, {"location": LOCATION, "properties": {"ipConfigurations": [{
            "name": ipc_name, "properties": {"subnet": {"id": handle.subnet_id}, "publicIPAddress": {"id": path}}}]}})
    if "/publicIPAddresses/" in path and "/loadBalancers/" in holder:  # ... or on a load balancer frontend
        lb_id, _, frontend = holder.partition("/frontendIPConfigurations/")
        group(handle, lb_id.split("/")[4])
        call(handle, "PUT", lb_id, {"location": LOCATION, "properties": {"frontendIPConfigurations": [{
            "name": frontend, "properties": {"publicIPAddress": {"id": path}}}]}})
    for subnet_body in (body.get("properties") or {}).get("subnets") or []:  # load balancers in a vnet's subnets
        for ipc in (subnet_body.get("properties") or {}).get("ipConfigurations") or []:
            lb_id, _, frontend = ipc["id"].partition("/frontendIPConfigurations/")
            if frontend:
                group(handle, lb_id.split("/")[4])
                call(handle, "PUT", lb_id, {"location": LOCATION, "properties": {"frontendIPConfigurations": [{
                    "name": frontend, "properties": {"subnet": {"id": f"{path}/subnets/{subnet_body['name']}"}}}]}})


def minimal_vm_with_nic(handle: EmulatorHandle, vm_id: str, nic_id: str) -> None:
    group(handle, vm_id.split("/")[4])
    call(handle, "PUT", vm_id, {"location": LOCATION, "properties": {
        "storageProfile": {"osDisk": {"createOption": "FromImage"}},
        "networkProfile": {"networkInterfaces": [{"id": nic_id}]},
    }})


def reservation_group(handle: EmulatorHandle, path: str, example: dict[str, Any]) -> None:
    """The capacity reservation group a reservation example needs, and the reservations a group example shows."""
    answer = next(iter(example["responses"].values()))["body"]
    location = answer.get("location", LOCATION)
    group_path = path.split("/capacityReservations/")[0]
    call(handle, "PUT", group_path, {"location": location, "zones": ["1", "2", "3"]})
    for reservation in ((answer.get("properties") or {}).get("instanceView") or {}).get("capacityReservations") or []:
        call(handle, "PUT", f"{group_path}/capacityReservations/{reservation['name']}",
             {"location": location, "sku": {"name": "Standard_D2s_v5", "capacity": 5}})


_TYPE = re.compile(r"/providers/(Microsoft\.\w+)/(\w+)/([^/]+)", re.IGNORECASE)


def prepare(handle: EmulatorHandle, before: str, example: dict[str, Any], path: str) -> None:
    """Make the state an example's request assumes (see conformance_catalog.Operation.before)."""
    params = example["parameters"]
    if "resourceGroupName" in params:
        group(handle, params["resourceGroupName"])
    for body in [value for value in params.values() if isinstance(value, dict)]:
        references(handle, body)
    if "/capacityReservationGroups/" in path:
        reservation_group(handle, path, example)
    if before == "references":
        if "/extensions/" in path:
            minimal_vm(handle, path.split("/extensions/")[0])
        if "/subnets/" in path:
            subnet(handle, path.rsplit("/subnets/", 1)[0] + "/subnets/default")
    elif before == "resource":
        if "/subnets/" in path:
            subnet(handle, path)
        if "/extensions/" in path:
            minimal_vm(handle, path.split("/extensions/")[0])
        like_example(handle, path, example["responses"]["200"]["body"])
    elif before == "list" and path.endswith("/extensions"):  # a VM's extensions, on the VM the request names
        minimal_vm(handle, path.rsplit("/extensions", 1)[0])
        for item in example["responses"]["200"]["body"].get("value", []):
            call(handle, "PUT", f"{path}/{item['name']}", item)
    elif before == "list":
        for item in example["responses"]["200"]["body"]["value"]:
            group(handle, item["id"].split("/")[4])
            if "/subnets/" in item["id"]:
                subnet(handle, item["id"])
            if item.get("properties"):
                like_example(handle, item["id"], item)
            else:  # an item that shows nothing but its id
                minimal(handle, item["id"])
    elif before == "minimal":
        minimal(handle, path)
    elif before == "extended_vm":  # a VM with the extensions its instance view shows
        vm_id = path.rsplit("/", 1)[0]
        minimal_vm(handle, vm_id)
        for shown in example["responses"]["200"]["body"].get("extensions", []):
            vm_extension(handle, f"{vm_id}/extensions/{shown['name']}", shown["type"], shown["typeHandlerVersion"])
    elif before == "premium_disk":  # 128 GB: performance tier P10
        call(handle, "PUT", path, {"location": LOCATION, "sku": {"name": "Premium_LRS"}, "properties": {
            "creationData": {"createOption": "Empty"}, "diskSizeGB": 128}})
    elif before == "graph":
        for i in range(5):
            minimal_vm(handle, f"/subscriptions/{handle.subscription_id}/resourceGroups/graph/providers/"
                                f"Microsoft.Compute/virtualMachines/test-vm{i}")


def minimal(handle: EmulatorHandle, path: str) -> None:
    """A resource of the type `path` addresses (an action's resource for a POST), with what it needs."""
    vm_id, _, extension = path.partition("/extensions/")
    if extension:  # a VM extension: on its VM
        minimal_vm(handle, vm_id)
        return vm_extension(handle, path, "Microsoft.Azure.Extensions.CustomScript", "2.1")
    found = _TYPE.search(path)
    if found is None:
        return group(handle, path.split("/")[4])
    resource_id = path[:found.end()]
    kind = found.group(2).lower()
    if kind == "virtualmachines":
        minimal_vm(handle, resource_id)
    elif kind == "disks":
        disk(handle, resource_id)
    elif kind == "networkinterfaces":
        nic(handle, resource_id)
    elif kind == "virtualnetworks" and "/subnets/" in path:
        subnet(handle, path)
    elif kind == "virtualnetworks":
        subnet(handle, resource_id + "/subnets/default")
    else:
        network_resource(handle, resource_id)


def unavailable_vm(handle: EmulatorHandle) -> str:
    """A VM whose Resource Health says Unavailable, platform initiated; its id."""
    vm_id = f"/subscriptions/{handle.subscription_id}/resourceGroups/health/providers/Microsoft.Compute/" \
            "virtualMachines/sick"
    minimal_vm(handle, vm_id)
    handle.force_resource_health(["sick"], "Unavailable")
    return vm_id


def vm_extension(handle: EmulatorHandle, extension_id: str, kind: str, version: str) -> None:
    """An extension of `kind` ("<publisher>.<type>") installed on its VM."""
    publisher, _, extension_type = kind.rpartition(".")
    call(handle, "PUT", extension_id, {"location": LOCATION, "properties": {
        "publisher": publisher, "type": extension_type, "typeHandlerVersion": version}})
