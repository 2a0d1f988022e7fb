"""What the driver sends: VM/NIC bodies, graph queries, list grouping, the spec's JSON schema (pure)."""

from typing import Any

import pytest

from activities.nic import build_nic
from activities.reading.fleet import group_rows
from activities.reading.graph import fleet_query, kql_string, machine_query
from activities.vm_body import build_vm
from models.inventory import DataDiskRef
from models.schema import spec_json_schema
from models.spec import MachineSpec

SUBNET = ("/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Network/"
          "virtualNetworks/vnet/subnets/default")


def spec(**changes: Any) -> MachineSpec:
    base: dict[str, Any] = {
        "name": "vm1", "resource_group": "rg", "location": "westeurope", "vm_size": "Standard_D2s_v5",
        "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
        "subnet_id": SUBNET, "ssh_public_key": "ssh-ed25519 AAAAkey", "pool": "p1",
        "data_disks": [{"lun": 1, "size_gb": 64, "name": "logs"}, {"lun": 0, "size_gb": 32}],
    }
    base.update(changes)
    return MachineSpec.model_validate(base)


def test_vm_body_is_arm_camel_case_with_delete_options_and_names() -> None:
    body = build_vm(spec(), "/nic-id", {"azmc-machine": "vm1", "azmc-owner": "i/machine/rg/vm1"}).as_dict()
    props = body["properties"]
    assert body["tags"] == {"azmc-machine": "vm1", "azmc-owner": "i/machine/rg/vm1"}
    assert props["osProfile"]["linuxConfiguration"]["disablePasswordAuthentication"] is True
    assert "adminPassword" not in props["osProfile"]
    os_disk = props["storageProfile"]["osDisk"]
    assert (os_disk["name"], os_disk["deleteOption"], os_disk["createOption"]) == ("vm1-os-disk", "Delete",
                                                                                 "FromImage")
    data = props["storageProfile"]["dataDisks"]
    assert [(d["name"], d["lun"], d["createOption"], d["deleteOption"]) for d in data] == [
        ("vm1-0-data-disk", 0, "Empty", "Detach"), ("vm1-logs-1-data-disk", 1, "Empty", "Detach")]
    nic = props["networkProfile"]["networkInterfaces"][0]
    assert nic["id"] == "/nic-id" and nic["properties"]["deleteOption"] == "Delete"
    assert "priority" not in props and "zones" not in body


def test_vm_body_attaches_the_data_disks_that_exist_and_creates_only_the_missing_ones() -> None:
    kept = DataDiskRef(name="vm1-LOGS-1-data-disk", id="/subscriptions/s/disks/vm1-logs-1-data-disk", unique_id="u1")
    data = build_vm(spec(), "/nic-id", {}, [kept]).as_dict()["properties"]["storageProfile"]["dataDisks"]
    assert [(d["name"], d["lun"], d["createOption"], d["deleteOption"]) for d in data] == [
        ("vm1-0-data-disk", 0, "Empty", "Detach"), ("vm1-logs-1-data-disk", 1, "Attach", "Detach")]
    assert data[1]["managedDisk"] == {"id": kept.id}
    assert "diskSizeGB" not in data[1] and data[0]["diskSizeGB"] == 32


def test_spot_and_zone() -> None:
    body = build_vm(spec(priority="Spot", spot={"eviction_policy": "Deallocate", "max_price": 0.5}, zone="2"),
                    "/n", {}).as_dict()
    assert body["zones"] == ["2"]
    assert body["properties"]["priority"] == "Spot"
    assert body["properties"]["evictionPolicy"] == "Deallocate"
    assert body["properties"]["billingProfile"] == {"maxPrice": 0.5}


def test_nic_body() -> None:
    body = build_nic(spec(accelerated_networking=True), {"azmc-machine": "vm1"}).as_dict()
    assert body["properties"]["enableAcceleratedNetworking"] is True
    assert body["properties"]["ipConfigurations"][0]["properties"]["subnet"] == {"id": SUBNET}
    assert body["tags"] == {"azmc-machine": "vm1"}


def test_queries_match_the_tag_exactly_and_quote_values() -> None:
    query = machine_query("rg", "vm1")
    assert "tags['azmc-machine'] == 'vm1'" in query and "resourceGroup =~ 'rg'" in query
    assert kql_string("it's") == "'it\\'s'"
    assert "azmc-pool'] == 'p1'" in fleet_query("", "p1") and "resourceGroup =~" not in fleet_query("", "p1")


def test_list_grouping_keeps_machines_apart() -> None:
    def row(kind: str, name: str, machine: str, rg: str = "RG") -> dict[str, Any]:
        return {"id": f"/subscriptions/s/resourceGroups/{rg}/providers/{kind}/{name}", "name": name,
                "type": kind.lower(), "resourceGroup": rg.lower(), "tags": {"azmc-machine": machine},
                "properties": {"provisioningState": "Succeeded"}}
    vm_row = row("Microsoft.Compute/virtualMachines", "vm1", "vm1")
    # Disks made by the VM PUT are untagged: the VM row's profile is what names them.
    vm_row["properties"]["storageProfile"] = {
        "osDisk": {"name": "vm1-os-disk", "managedDisk": {"id": "/s/disks/vm1-os-disk"}},
        "dataDisks": [{"name": "vm1-0-data-disk"}]}
    rows = [vm_row,
            row("Microsoft.Network/networkInterfaces", "vm1-nic", "vm1"),
            row("Microsoft.Compute/disks", "vm10-os-disk", "vm10"),
            {"id": "x", "name": "untagged", "type": "microsoft.compute/disks", "tags": {}}]
    machines = group_rows(rows)
    assert [(m.name, m.resource_group) for m in machines] == [("vm1", "RG"), ("vm10", "RG")]
    vm1, vm10 = machines
    assert vm1.inventory.has_vm and vm1.inventory.node_name == "vm1" and vm1.inventory.nic_names == ["vm1-nic"]
    assert vm1.inventory.disk_names == ["vm1-0-data-disk", "vm1-os-disk"]
    assert not vm10.inventory.has_vm and vm10.inventory.disk_names == ["vm10-os-disk"]


def test_spec_json_schema_describes_the_spec() -> None:
    schema = spec_json_schema()
    assert schema["title"] == "MachineSpec"
    assert {"name", "resource_group", "subnet_id", "ssh_public_key"} <= set(schema["required"])
    assert "data_disks" in schema["properties"]


@pytest.mark.parametrize("bad", [{"name": "VM_1"}, {"zone": "4"}])
def test_schema_and_model_agree_on_bad_specs(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        spec(**bad)
