"""MachineSpec's networking fields (models/spec_network.py): ids checked for their type's shape, errors naming
the field; older stored specs (accelerated_networking false) still decode; `azmc schema` describes each field;
the example spec validates."""

from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from emulator.seed import seed_asg_id, seed_backend_pool_id, seed_nsg_id, seed_subnet_id
from models.schema import spec_json_schema
from models.spec import MachineSpec
from models.spec_changes import changed_fields, needs_new_vm, nic_changed

BASE: dict[str, Any] = {"name": "vm1", "resource_group": "rg", "location": "westeurope", "vm_size": "Standard_B2s",
                        "image": {"publisher": "p", "offer": "o", "sku": "s"}, "subnet_id": seed_subnet_id(),
                        "ssh_public_key": "ssh-ed25519 AAAA x"}
FIELDS = ("network_security_group_id", "application_security_group_ids", "load_balancer_backend_address_pool_ids",
          "public_ip", "accelerated_networking")


def _error(**fields: Any) -> tuple[tuple[Any, ...], str]:
    with pytest.raises(ValidationError) as refused:
        MachineSpec.model_validate({**BASE, **fields})
    first = refused.value.errors()[0]
    return first["loc"], first["msg"]


def test_defaults_keep_a_plain_machine_as_before() -> None:
    spec = MachineSpec.model_validate(BASE)
    assert (spec.network_security_group_id, spec.application_security_group_ids,
            spec.load_balancer_backend_address_pool_ids, spec.public_ip, spec.accelerated_networking) == \
        ("", [], [], None, None)
    # A spec stored before (accelerated_networking false) still decodes and means what it meant.
    assert MachineSpec.model_validate({**BASE, "accelerated_networking": False}).accelerated_networking is False


@pytest.mark.parametrize(("field", "value", "shape"), [
    ("network_security_group_id", seed_asg_id(), "networkSecurityGroups"),
    ("application_security_group_ids", [seed_nsg_id()], "applicationSecurityGroups"),
    ("load_balancer_backend_address_pool_ids", [seed_backend_pool_id().rsplit("/backendAddressPools", 1)[0]],
     "loadBalancers/<load balancer name>/backendAddressPools"),
])
def test_an_id_of_another_shape_is_refused_naming_the_field(field: str, value: Any, shape: str) -> None:
    loc, message = _error(**{field: value})
    assert loc[0] == field and f"Microsoft.Network/{shape}" in message


def test_a_repeated_id_and_a_basic_public_ip_are_refused() -> None:
    loc, message = _error(application_security_group_ids=[seed_asg_id(), seed_asg_id().upper()])
    assert loc == ("application_security_group_ids",) and "listed twice" in message
    loc, _ = _error(public_ip={"sku": "Basic"})
    assert loc == ("public_ip", "sku")


def test_memberships_change_in_place_the_public_ip_and_accelerated_networking_do_not() -> None:
    old = MachineSpec.model_validate({**BASE, "accelerated_networking": False})
    new = MachineSpec.model_validate({**BASE, "network_security_group_id": seed_nsg_id(), "public_ip": {}})
    changed = changed_fields(old, new)
    assert changed == ["network_security_group_id", "public_ip"]  # null accelerated networking keeps the NIC's
    assert nic_changed(changed) and needs_new_vm(changed) == ["public_ip"]
    assert needs_new_vm(changed_fields(old, old.model_copy(update={"accelerated_networking": True}))) == [
        "accelerated_networking"]


def test_the_schema_describes_each_field_and_the_example_validates() -> None:
    properties = spec_json_schema()["properties"]
    for field in FIELDS:
        assert properties[field].get("description"), field
    example = yaml.safe_load((Path(__file__).parents[2] / "examples" / "machine-networking.yaml").read_text())
    spec = MachineSpec.model_validate(example)
    assert spec.public_ip is not None and spec.network_security_group_id.endswith("/azmc-nsg")
