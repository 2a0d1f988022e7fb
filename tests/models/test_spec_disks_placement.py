"""The disk and placement fields of MachineSpec: ids checked for their type, combinations Azure refuses refused
first naming the fields, `azmc schema` describing each, the example valid, the plain body unchanged."""

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from activities.vm_body import build_vm
from models.schema import spec_json_schema
from models.spec import MachineSpec
from models.validation import describe_validation_error
from tests.workflows.helpers import spec_dict

GROUP = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/azmc-demo/providers/Microsoft.Compute"
FIELDS = {"disk_encryption_set_id": "diskEncryptionSets", "capacity_reservation_group_id":
          "capacityReservationGroups", "proximity_placement_group_id": "proximityPlacementGroups",
          "availability_set_id": "availabilitySets"}


def _refusal(**fields: object) -> str:
    with pytest.raises(ValidationError) as caught:
        MachineSpec.model_validate(spec_dict(**fields))
    return describe_validation_error(caught.value)


@pytest.mark.parametrize("field", FIELDS)
def test_an_id_of_another_type_or_shape_is_refused_naming_the_field(field: str) -> None:
    other = next(kind for name, kind in FIELDS.items() if name != field)
    for wrong in (f"{GROUP}/{other}/x", f"{GROUP}/{FIELDS[field]}", "azmc-des", f"{GROUP}/{FIELDS[field]}/a b"):
        assert f"{field}: " in _refusal(**{field: wrong})
    assert getattr(MachineSpec.model_validate(spec_dict(**{field: f"{GROUP}/{FIELDS[field]}/ok"})), field)


def test_an_availability_set_is_refused_with_a_zone_or_spot() -> None:
    avset = f"{GROUP}/availabilitySets/as"
    assert "availability_set_id and zones" in _refusal(availability_set_id=avset, zones=["", "2"])
    assert "availability_set_id and priority" in _refusal(availability_set_id=avset, priority="Spot")


def test_an_ephemeral_spot_machine_must_be_deleted_on_eviction() -> None:
    ephemeral = {"size_gb": 30, "ephemeral": {"placement": "ResourceDisk"}}
    assert "os_disk.ephemeral and spot.eviction_policy" in _refusal(
        os_disk=ephemeral, priority="Spot", spot={"eviction_policy": "Deallocate"})
    assert "os_disk.ephemeral.placement" in _refusal(os_disk={"ephemeral": {"placement": "Floppy"}})
    assert "data_disks.0.ephemeral" in _refusal(data_disks=[{"lun": 0, "size_gb": 8, "ephemeral": {}}])
    MachineSpec.model_validate(spec_dict(os_disk=ephemeral, priority="Spot"))


def test_schema_describes_each_field() -> None:
    schema = spec_json_schema()
    for field in [*FIELDS, "encryption_at_host"]:
        assert schema["properties"][field]["description"]
    assert "ephemeral" in schema["$defs"]["OsDisk"]["properties"]
    assert "ephemeral" not in schema["$defs"]["DataDisk"]["properties"]


def test_the_example_is_valid_and_a_plain_body_is_unchanged() -> None:
    example = yaml.safe_load(Path("examples/machine-disks-placement.yaml").read_text())
    spec = MachineSpec.model_validate(example)
    body = build_vm(spec, "nic", {}).as_dict()["properties"]
    assert body["storageProfile"]["osDisk"]["diffDiskSettings"] == {"option": "Local", "placement": "CacheDisk"}
    assert body["securityProfile"] == {"encryptionAtHost": True}
    assert "diskEncryptionSet" not in body["storageProfile"]["osDisk"]["managedDisk"]  # ephemeral: data disks only
    assert body["storageProfile"]["dataDisks"][0]["managedDisk"]["diskEncryptionSet"]["id"].endswith("azmc-des")
    plain = build_vm(MachineSpec.model_validate(spec_dict()), "nic", {}).as_dict()["properties"]
    assert not {"securityProfile", "capacityReservation", "proximityPlacementGroup", "availabilitySet"} & set(plain)
    assert "diffDiskSettings" not in plain["storageProfile"]["osDisk"]
