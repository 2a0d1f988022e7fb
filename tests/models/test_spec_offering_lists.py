"""vm_sizes and zones: ordered lists, with the single-value vm_size/zone of older specs read as a list of one."""

import pytest
from pydantic import ValidationError

from models.spec import MachineSpec
from models.validation import describe_validation_error
from tests.models.test_spec import error_fields, spec_dict


def lists(**overrides: object) -> dict:
    data = spec_dict(**overrides)
    data.pop("vm_size")
    return data


def test_lists_keep_the_operators_order() -> None:
    spec = MachineSpec.model_validate(lists(vm_sizes=["Standard_D4s_v5", "Standard_D4as_v5"], zones=["2", "1", ""]))
    assert spec.vm_sizes == ["Standard_D4s_v5", "Standard_D4as_v5"] and spec.zones == ["2", "1", ""]
    assert (spec.vm_size, spec.zone) == ("Standard_D4s_v5", "2")  # the preferred ones


def test_an_older_spec_is_a_list_of_one_and_dumps_as_lists() -> None:
    spec = MachineSpec.model_validate(spec_dict(zone="3"))
    assert (spec.vm_sizes, spec.zones) == (["Standard_D2s_v3"], ["3"])
    dumped = spec.model_dump(mode="json")
    assert "vm_size" not in dumped and "zone" not in dumped
    assert MachineSpec.model_validate(dumped) == spec
    assert MachineSpec.model_validate(spec_dict()).zones == [""]  # no zone: regional


def test_spot_fallback_is_off_unless_asked() -> None:
    spot = MachineSpec.model_validate(spec_dict(priority="Spot", spot={}))
    assert spot.spot is not None and spot.spot.fallback_to_regular is False
    assert error_fields(spec_dict(spot={"fallback_to_regular": True})) == [""]  # spot settings need Spot


@pytest.mark.parametrize(("data", "field", "says"), [
    (lists(vm_sizes=[]), "vm_sizes", "at least 1 item"),
    (lists(vm_sizes=["Standard_D2s_v5", "standard_d2s_v5"]), "vm_sizes", "listed twice"),
    (lists(vm_sizes=["Standard D2s"]), "vm_sizes.0", "VM size 'Standard D2s': letters, digits"),
    (lists(), "vm_sizes", "required field is missing"),
    (spec_dict(zones=["1", "2", "1"]), "zones", "'1' is listed twice"),
    (spec_dict(zones=["4"]), "zones.0", "pattern"),
    (spec_dict(zones=[]), "zones", "at least 1 item"),
    (spec_dict(vm_sizes=["Standard_D2s_v5"]), "(whole spec)", "give vm_size or vm_sizes, not both"),
    (spec_dict(zone="1", zones=["2"]), "(whole spec)", "give zone or zones, not both"),
])
def test_list_errors_name_the_field_and_the_problem(data: dict, field: str, says: str) -> None:
    with pytest.raises(ValidationError) as caught:
        MachineSpec.model_validate(data)
    message = describe_validation_error(caught.value)
    assert f"{field}: " in message and says in message, message
