"""MachineSpec refuses what ARM would refuse (tags, names azmc derives, resource group), naming the field."""

import pytest
from pydantic import ValidationError

from models.arm_names import MACHINE_NAME, MAX_TAGS, MAX_USER_TAGS, NIC_NAME, POOL_NAME, RESOURCE_GROUP_NAME
from models.naming import MACHINE_TAG, POOL_TAG
from models.spec import MachineSpec
from tests.models.test_spec import SUBSCRIPTION, spec_dict


def first_error(data: dict) -> tuple[str, str]:
    with pytest.raises(ValidationError) as caught:
        MachineSpec.model_validate(data)
    first = caught.value.errors()[0]
    return ".".join(str(p) for p in first["loc"]), first["msg"]


@pytest.mark.parametrize("key", ["a/b<c>", "a<b", "b>", "50%", "r&d", "back\\slash", "why?", "x/y"])
def test_tag_keys_with_characters_azure_refuses(key: str) -> None:
    field, message = first_error(spec_dict(tags={key: "v"}))
    assert field == "tags" and "cannot contain" in message and repr(key) in message


def test_tag_key_and_value_lengths_are_azures() -> None:
    assert MachineSpec.model_validate(spec_dict(tags={"k" * 512: "v" * 256})).tags
    assert first_error(spec_dict(tags={"k" * 513: "v"}))[0] == "tags"
    field, message = first_error(spec_dict(tags={"k": "v" * 257}))
    assert field == "tags" and "256" in message
    assert first_error(spec_dict(tags={"": "v"}))[0] == "tags"


def test_fifty_tags_counting_azmcs_own() -> None:
    assert MAX_TAGS - MAX_USER_TAGS == 3  # azmc-machine, azmc-pool, azmc-owner
    most = {f"t{i}": "v" for i in range(MAX_USER_TAGS)}
    spec = MachineSpec.model_validate(spec_dict(tags=most, pool="web"))
    assert len(spec.machine_tags()) <= MAX_TAGS - 1  # room left for the owner tag
    field, message = first_error(spec_dict(tags={**most, "one-more": "v"}))
    assert field == "tags" and f"at most {MAX_USER_TAGS} tags" in message


def test_tag_keys_are_case_insensitive_to_azure() -> None:
    field, message = first_error(spec_dict(tags={"Team": "a", "team": "b"}))
    assert field == "tags" and "case-insensitive" in message


@pytest.mark.parametrize("key", [MACHINE_TAG, POOL_TAG, "AZMC-owner", "azmc-anything"])
def test_azmc_tags_are_reserved(key: str) -> None:
    field, message = first_error(spec_dict(tags={key: "v"}))
    assert field == "tags" and "reserved" in message


@pytest.mark.parametrize("rg", ["a", "rg_1", "(rg)", "rg.prod-1", "grüne-gruppe", "r" * 90])
def test_resource_group_names_arm_accepts(rg: str) -> None:
    assert MachineSpec.model_validate(spec_dict(resource_group=rg)).resource_group == rg


@pytest.mark.parametrize("rg", ["rg.", "r" * 91, "rg/x", "rg'x", "rg x", "rg%00", "..", "rg\n."])
def test_resource_group_names_arm_refuses(rg: str) -> None:
    assert first_error(spec_dict(resource_group=rg))[0] == "resource_group"


@pytest.mark.parametrize("name", ["vm1\nx", "vm1'", "vm1 OR x", "\uff56\uff4d1", "a" * 65, "vm-"])
def test_machine_names_refused(name: str) -> None:
    assert first_error(spec_dict(name=name))[0] == "name"


def test_derived_data_disk_name_over_80_characters_names_the_field() -> None:
    field, message = first_error(spec_dict(name="a" * 40, data_disks=[{"name": "d" * 30, "lun": 1, "size_gb": 1}]))
    assert field == "data_disks" and "derived disk name" in message and "1-80 characters" in message


def test_every_name_azmc_derives_from_a_valid_spec_follows_arm() -> None:
    disks = [{"lun": 63, "size_gb": 1}, {"name": "d", "lun": 1, "size_gb": 1}]
    longest = MachineSpec.model_validate(spec_dict(name="a" * 64, data_disks=disks))
    assert NIC_NAME.problem(f"{longest.name}-nic") is None
    assert all(len(name) <= 80 for name in longest.all_disk_names())


@pytest.mark.parametrize(("pool", "ok"), [("web", True), ("Web.pool_1", True), ("", True), ("-web", False),
                                          ("web pool", False), ("w'eb", False), ("p" * 64, False)])
def test_pool_names(pool: str, ok: bool) -> None:
    if ok:
        assert MachineSpec.model_validate(spec_dict(pool=pool)).pool == pool
    else:
        assert first_error(spec_dict(pool=pool))[0] == "pool"


@pytest.mark.parametrize(("segment", "value"), [("resourceGroups", "rg."), ("virtualNetworks", "v"),
                                                ("virtualNetworks", "vnet%2F"), ("subnets", "sub net")])
def test_subnet_id_segments_follow_arm_names(segment: str, value: str) -> None:
    defaults = {"resourceGroups": "rg", "virtualNetworks": "vnet", "subnets": "default"}
    parts = {**defaults, segment: value}
    subnet = (f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{parts['resourceGroups']}/providers/Microsoft.Network/"
              f"virtualNetworks/{parts['virtualNetworks']}/subnets/{parts['subnets']}")
    field, message = first_error(spec_dict(subnet_id=subnet))
    assert field == "subnet_id" and repr(value) in message


def test_rules_report_what_is_wrong_without_pydantic() -> None:
    assert MACHINE_NAME.problem("vm1") is None and MACHINE_NAME.problem("vm1\n") is not None
    assert RESOURCE_GROUP_NAME.problem("rg\n") is not None
    assert POOL_NAME.problem("x' OR 'a'='a") is not None
