"""MachineSpec validation: what an operator sees when a spec is wrong, and what a valid spec becomes."""

from datetime import timedelta

import pytest
from pydantic import ValidationError

from models.naming import data_disk_name, nic_name, os_disk_name
from models.spec import MachineSpec

SUBSCRIPTION = "00000000-0000-0000-0000-000000000001"
SUBNET = (f"/subscriptions/{SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/vnet/"
          "subnets/default")


def spec_dict(**overrides: object) -> dict:
    base = {
        "name": "vm1",
        "resource_group": "rg",
        "location": "westeurope",
        "vm_size": "Standard_D2s_v3",
        "image": {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server"},
        "subnet_id": SUBNET,
        "ssh_public_key": "ssh-ed25519 AAAAC3Nza test",
    }
    base.update(overrides)
    return base


def error_fields(data: dict) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        MachineSpec.model_validate(data)
    return [".".join(str(p) for p in err["loc"]) for err in caught.value.errors()]


def test_defaults_are_mcms() -> None:
    spec = MachineSpec.model_validate(spec_dict())
    assert spec.timeouts.creation == timedelta(minutes=20)
    assert spec.timeouts.health == timedelta(minutes=10)
    assert spec.timeouts.drain == timedelta(hours=2)
    assert spec.os_disk.size_gb == 30


def test_round_trips_through_json_with_human_durations() -> None:
    spec = MachineSpec.model_validate(spec_dict(timeouts={"creation": "1h30m", "health": 90, "drain": "PT2H"}))
    assert spec.timeouts.creation == timedelta(minutes=90)
    assert spec.timeouts.health == timedelta(seconds=90)
    dumped = spec.model_dump(mode="json")
    assert dumped["timeouts"]["creation"] == "90m"
    assert MachineSpec.model_validate(dumped) == spec


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"name": "VM_1"}, "name"),
        ({"name": "-vm"}, "name"),
        ({"name": ""}, "name"),
        ({"resource_group": "rg."}, "resource_group"),
        ({"subnet_id": "default"}, "subnet_id"),
        ({"ssh_public_key": "hunter2"}, "ssh_public_key"),
        ({"data_disks": [{"lun": 0, "size_gb": 8}, {"lun": 0, "size_gb": 9}]}, "data_disks"),
        ({"data_disks": [{"lun": 64, "size_gb": 8}]}, "data_disks.0.lun"),
        ({"os_disk": {"sku": "Gold_LRS"}}, "os_disk.sku"),
        ({"tags": {"azmc-machine": "other"}}, "tags"),
        ({"zone": "4"}, "zones.0"),
        ({"zones": ["1", "1"]}, "zones"),
        ({"zones": []}, "zones"),
        ({"timeouts": {"creation": "0s"}}, "timeouts"),
        ({"timeouts": {"creation": "soon"}}, "timeouts.creation"),
        ({"image": {"publisher": "Canonical"}}, "image"),
        ({"image": {"id": f"/subscriptions/{SUBSCRIPTION}/resourceGroups/rg/providers/Microsoft.Compute/images/i",
                    "publisher": "a", "offer": "b", "sku": "c"}}, "image"),
        ({"image": {"id": "/x"}}, "image.id"),
        ({"colour": "blue"}, "colour"),
        ({"vm_size": 3}, "vm_sizes.0"),
        ({"vm_size": "Standard D2"}, "vm_sizes.0"),
    ],
)
def test_errors_name_the_field(overrides: dict, field: str) -> None:
    assert field in error_fields(spec_dict(**overrides))


def test_spot_settings_need_spot_priority() -> None:
    assert error_fields(spec_dict(spot={"eviction_policy": "Delete"})) == [""]
    spec = MachineSpec.model_validate(spec_dict(priority="Spot", spot={"max_price": 0.05}))
    assert spec.spot is not None and spec.spot.max_price == 0.05


def test_derived_names_must_fit_azure_limits() -> None:
    long_name = "a" * 64
    disks = [{"name": "d" * 30, "lun": 1, "size_gb": 1}]
    assert error_fields(spec_dict(name=long_name, data_disks=disks)) == ["data_disks"]


def test_disk_names_follow_mcm_conventions_sorted_by_lun() -> None:
    spec = MachineSpec.model_validate(
        spec_dict(data_disks=[{"lun": 3, "size_gb": 8}, {"name": "etcd", "lun": 1, "size_gb": 8}])
    )
    assert spec.all_disk_names() == ["vm1-os-disk", "vm1-etcd-1-data-disk", "vm1-3-data-disk"]
    assert (os_disk_name("vm1"), nic_name("vm1"), data_disk_name("vm1", 2)) == (
        "vm1-os-disk",
        "vm1-nic",
        "vm1-2-data-disk",
    )


def test_machine_tags_keep_user_tags_and_add_ours() -> None:
    spec = MachineSpec.model_validate(spec_dict(tags={"team": "infra"}, pool="workers"))
    assert spec.machine_tags() == {"team": "infra", "azmc-machine": "vm1", "azmc-pool": "workers"}
    assert "azmc-pool" not in MachineSpec.model_validate(spec_dict()).machine_tags()
