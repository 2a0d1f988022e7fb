"""Every rule of models/arm_names.py's table, with a name Azure accepts and names it refuses (from Microsoft's
naming rules page and Partner Center's); its error names the rule and shows the value escaped; `azmc schema`'s
pattern for it says the same."""

import re
from pathlib import Path

import pytest

from models.arm_names import (
    ASG_NAME,
    AVAILABILITY_SET_NAME,
    BACKEND_POOL_NAME,
    CAPACITY_RESERVATION_GROUP_NAME,
    COMMUNITY_GALLERY_NAME,
    DISK_ENCRYPTION_SET_NAME,
    DISK_NAME,
    GALLERY_IMAGE_NAME,
    GALLERY_IMAGE_VERSION,
    GALLERY_NAME,
    IMAGE_NAME,
    IMAGE_VERSION,
    LOAD_BALANCER_NAME,
    LOCATION,
    MACHINE_NAME,
    MARKETPLACE_OFFER,
    MARKETPLACE_PLAN,
    MARKETPLACE_PUBLISHER,
    NIC_NAME,
    NSG_NAME,
    POOL_NAME,
    PROXIMITY_PLACEMENT_GROUP_NAME,
    PUBLIC_IP_NAME,
    RESOURCE_GROUP_NAME,
    RULES,
    SHARED_GALLERY_NAME,
    SUBNET_NAME,
    SUBSCRIPTION_ID,
    USER_ASSIGNED_IDENTITY_NAME,
    VM_SIZE,
    VNET_NAME,
    NameRule,
    rules_table,
)

# What no rule takes: a second path segment, a parent, a URL's query or fragment, an escape, invisible text.
NEVER = ["a/b", "..", "a?b", "a#b", "a%2Fb", "a b", "a\u202eb", "a\x1bb", "a\nb", ""]
_NETWORK = (["nic-1", "_nic_", "a.b_", "N" * 80], ["-nic", "nic.", "nic-", "N" * 81, "ni'c", "n|c"])
_COMPUTE = (["as-1", "a.b_", "A" * 80], ["_as", "as.", "as-", "A" * 81, "a'b|c"])
_MARKETPLACE = (["Canonical", "ubuntu-24_04-lts", "18.04-LTS", "a" * 50], ["-x", "x.", "p'|x", "\u00fc", "a" * 51])
EXAMPLES: dict[NameRule, tuple[list[str], list[str]]] = {
    MACHINE_NAME: (["vm1", "a", "web-0abcd", "v" * 64], ["VM1", "vm_1", "-vm", "vm-", "v" * 65, "vm.1"]),
    RESOURCE_GROUP_NAME: (["rg", "rg.(prod)_1", "grüne-gruppe", "グループ", "r" * 90],
                          ["rg.", "r" * 91, "rg'x", "rg\u00b2", "rg\u216b", "rg,x"]),
    POOL_NAME: (["web", "Web.pool_1", "p" * 63], ["-web", "web.", "w'eb", "p" * 64]),
    SUBSCRIPTION_ID: (["00000000-0000-0000-0000-000000000000", "CFBBD179-59D2-4052-AA06-9270A38AA9D6"],
                      ["s1", "0000", "00000000-0000-0000-0000-00000000000g", "{00000000-0000-0000-0000-000000000000}"]),
    LOCATION: (["westeurope", "eastus2"], ["West Europe", "west-europe", "WestEurope", "l" * 51]),
    VM_SIZE: (["Standard_D2s_v5", "Standard_E4-2s_v5", "Basic_A0"], ["Standard D2", "2Standard", "S" * 65, "D2s.v5"]),
    VNET_NAME: (["vnet", "_v.1_", "V" * 64], ["v", "V" * 65, "-vnet", "vnet."]),
    SUBNET_NAME: _NETWORK,
    NIC_NAME: _NETWORK,
    PUBLIC_IP_NAME: _NETWORK,
    NSG_NAME: _NETWORK,
    ASG_NAME: _NETWORK,
    LOAD_BALANCER_NAME: _NETWORK,
    BACKEND_POOL_NAME: _NETWORK,
    DISK_NAME: (["vm1-os-disk", "-d_1", "D" * 80], ["d.1", "D" * 81, "d'1"]),
    DISK_ENCRYPTION_SET_NAME: (["des-1", "_des", "D" * 80], ["des.1", "D" * 81, "d|s"]),
    AVAILABILITY_SET_NAME: _COMPUTE,
    PROXIMITY_PLACEMENT_GROUP_NAME: _COMPUTE,
    CAPACITY_RESERVATION_GROUP_NAME: _COMPUTE,
    IMAGE_NAME: _COMPUTE,
    GALLERY_NAME: (["gallery", "my.gallery1", "G" * 80], ["my-gallery", "my_gallery", ".g", "g.", "G" * 81]),
    GALLERY_IMAGE_NAME: (["ubuntu-22.04_gen2", "I" * 80], ["-img", "img-", "img_", "I" * 81]),
    GALLERY_IMAGE_VERSION: (["1.0.0", "2024.12.31", "latest"], ["1.0", "1.0.0.0", "v1.0.0", "1.0.x", "Latest"]),
    SHARED_GALLERY_NAME: (["00000000-0000-0000-0000-000000000000-MYGALLERY"], ["-x", "x-", "a_b", "S" * 118]),
    COMMUNITY_GALLERY_NAME: (["ContosoImages-00000000-0000-0000-0000-000000000000"], ["-x", "x.", "a_b"]),
    USER_ASSIGNED_IDENTITY_NAME: (["id-1", "id_1", "I" * 128], ["id", "-id", "_id", "I" * 129, "id.1"]),
    MARKETPLACE_PUBLISHER: _MARKETPLACE,
    MARKETPLACE_OFFER: _MARKETPLACE,
    MARKETPLACE_PLAN: _MARKETPLACE,
    IMAGE_VERSION: (["latest", "22.04.202404230", "1", "1.2.3.4"], ["newest", "1.2.3.4.5", "1..2", "v1", "1.2-3"]),
}


def test_every_rule_of_the_table_has_examples() -> None:
    assert set(RULES) == set(EXAMPLES)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.kind)
def test_a_name_azure_accepts_passes_and_one_it_refuses_does_not(rule: NameRule) -> None:
    accepted, refused = EXAMPLES[rule]
    for name in accepted:
        assert rule.problem(name) is None, (rule.kind, name)
    for name in refused + NEVER:
        assert rule.problem(name) is not None, (rule.kind, name)


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.kind)
def test_the_error_names_the_rule_and_shows_the_value_escaped(rule: NameRule) -> None:
    with pytest.raises(ValueError) as refused:
        rule.check("a\u202eb")
    message = str(refused.value)
    assert message.startswith(f"{rule.kind} 'a\\u202eb': ") and "\u202e" not in message


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.kind)
def test_the_schema_pattern_says_what_the_rule_says(rule: NameRule) -> None:
    pattern = rule.json_pattern
    if pattern is None:  # Unicode letters: JSON Schema's regexes cannot say it, the length still is in the schema
        assert rule is RESOURCE_GROUP_NAME
        return
    accepted, refused = EXAMPLES[rule]
    for name in accepted:
        assert re.search(pattern, name), (rule.kind, name)
    for name in refused + NEVER:
        fits = rule.min_length <= len(name) <= rule.max_length
        assert not (fits and re.search(pattern, name)), (rule.kind, name)


def test_the_docs_table_is_the_rules_table() -> None:
    doc = Path(__file__).parents[2] / "docs" / "configuration.md"
    assert rules_table() in doc.read_text(), "docs/configuration.md: paste models.arm_names.rules_table() again"
