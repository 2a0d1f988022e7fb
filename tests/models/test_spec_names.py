"""Every name and id field of MachineSpec (and so of a MachinePool's template) is checked by Azure's rule for its
type before any Azure call: the error names the field, the rule and the value, escaped (issue 37, item 4)."""

from typing import Any

import pytest
from pydantic import ValidationError

from emulator.seed import SEED_SUBSCRIPTION, seed_asg_id, seed_backend_pool_id, seed_identity_id, seed_nsg_id
from models.pool import PoolSpec
from models.spec import MachineSpec
from models.validation import describe_validation_error
from tests.workflows.helpers import spec_dict

# The hostile-operator probe of issue 37: a plan that would put a path and a right-to-left override in a URL.
HOSTILE_PLAN = {"name": "p'|x", "publisher": "../..", "product": "\u00fc\u202e"}
GROUP = f"/subscriptions/{SEED_SUBSCRIPTION}/resourceGroups/azmc-demo/providers"
COMPUTE = f"{GROUP}/Microsoft.Compute"


def refusal(**overrides: Any) -> str:
    with pytest.raises(ValidationError) as refused:
        MachineSpec.model_validate(spec_dict(**overrides))
    return describe_validation_error(refused.value)


def test_the_probes_plan_is_refused_naming_each_field_and_rule_with_the_values_escaped() -> None:
    message = refusal(plan=HOSTILE_PLAN, accept_terms=True)
    assert "plan.name: marketplace plan (sku) id \"p'|x\": letters, digits" in message
    assert "plan.publisher: marketplace publisher id '../..': letters, digits" in message
    assert "plan.product: marketplace offer id '\u00fc\\u202e': letters, digits" in message
    assert "\u202e" not in message


def test_the_probes_security_group_is_refused_before_any_nic_put() -> None:
    nsg = seed_nsg_id().rsplit("/", 1)[0] + "/a'b|c"
    message = refusal(network_security_group_id=nsg)
    assert "network_security_group_id: network security group name \"a'b|c\": letters, digits" in message


# field -> (a value Azure takes, one it refuses, what the error says)
_NSG_PARENT = seed_nsg_id().rsplit("/", 1)[0]
_IMAGES = f"{COMPUTE}/galleries/gallery1/images/ubuntu"
FIELDS: dict[str, tuple[Any, Any, str]] = {
    "location": ("eastus2", "West Europe", "location 'West Europe'"),
    "vm_size": ("Standard_E4-2s_v5", "Standard_D2s.v5", "vm_sizes.0: VM size 'Standard_D2s.v5'"),
    "image": ({"publisher": "Canonical", "offer": "UbuntuServer", "sku": "18.04-LTS", "version": "18.04.202401010"},
              {"publisher": "Canonical", "offer": "../x", "sku": "server"}, "image.offer: marketplace offer id '../x'"),
    "image ": ({"publisher": "p", "offer": "o", "sku": "s", "version": "latest"},
               {"publisher": "p", "offer": "o", "sku": "s", "version": "1.0.0/../x"},
               "image.version: image version '1.0.0/../x'"),
    "image  ": ({"id": f"{_IMAGES}/versions/1.0.0"}, {"id": f"{_IMAGES}/versions/1.0"},
                "image.id: gallery image version '1.0'"),
    "image   ": ({"shared_gallery_image_id": "/SharedGalleries/sub-GALLERY/Images/ubuntu/Versions/latest"},
                 {"shared_gallery_image_id": "/SharedGalleries/sub%2FGALLERY/Images/ubuntu"},
                 "image.shared_gallery_image_id: shared gallery unique name 'sub%2FGALLERY'"),
    "image    ": ({"community_gallery_image_id": "/CommunityGalleries/pub-1/Images/ubuntu"},
                  {"community_gallery_image_id": "/CommunityGalleries/pub-1/Images/ubu ntu"},
                  "image.community_gallery_image_id: gallery image name 'ubu ntu'"),
    "subnet_id": (None, "/subscriptions/s1/resourceGroups/azmc-demo/providers/Microsoft.Network/virtualNetworks/v1/"
                        "subnets/default", "subnet_id: subscription id 's1': must be a GUID"),
    "network_security_group_id": (seed_nsg_id(), f"{_NSG_PARENT}/nsg\u202e",
                                  "network security group name 'nsg\\u202e'"),
    "application_security_group_ids": ([seed_asg_id()], [seed_asg_id() + "/x"], "is not the id of an application"),
    "load_balancer_backend_address_pool_ids": ([seed_backend_pool_id()], [seed_backend_pool_id() + "#x"],
                                               "backend address pool name"),
    "identity": ({"type": "UserAssigned", "user_assigned_identities": [seed_identity_id()]},
                 {"type": "UserAssigned", "user_assigned_identities": [seed_identity_id("id")]},
                 "identity.user_assigned_identities: user-assigned identity name 'id': must be 3-128"),
    "disk_encryption_set_id": (f"{COMPUTE}/diskEncryptionSets/des_1", f"{COMPUTE}/diskEncryptionSets/des.1",
                               "disk encryption set name 'des.1'"),
    "capacity_reservation_group_id": (f"{COMPUTE}/capacityReservationGroups/crg",
                                      f"{COMPUTE}/capacityReservationGroups/c?",
                                      "capacity reservation group name 'c?'"),
    "proximity_placement_group_id": (f"{COMPUTE}/proximityPlacementGroups/ppg",
                                     f"{COMPUTE}/proximityPlacementGroups/..", "proximity placement group name '..'"),
    "availability_set_id": (f"{COMPUTE}/availabilitySets/as1", f"{COMPUTE}/availabilitySets/as1/x",
                            "is not the id of an availability set"),
    "tags": ({"team": "\u202e any value"}, {"team\x1b": "v"}, "tags: tag 'team\\x1b': keys cannot contain control"),
}


@pytest.mark.parametrize("field", FIELDS)
def test_every_name_and_id_field_takes_what_azure_takes_and_refuses_what_it_refuses(field: str) -> None:
    accepted, refused, says = FIELDS[field]
    name = field.strip()
    if accepted is not None:
        assert getattr(MachineSpec.model_validate(spec_dict(**{name: accepted})), name)  # vm_size: vm_sizes[0]
    message = refusal(**{name: refused})
    assert f"{name}" in message and says in message, message
    assert "\u202e" not in message and "\x1b" not in message


def test_a_pool_template_is_checked_by_the_same_rules() -> None:
    template = {k: v for k, v in spec_dict(plan=HOSTILE_PLAN, accept_terms=True).items() if k not in ("name", "pool")}
    with pytest.raises(ValidationError) as refused:
        PoolSpec.model_validate({"name": "web", "resource_group": "azmc-demo", "replicas": 1, "template": template})
    message = describe_validation_error(refused.value, "MachinePool")
    assert "template.plan.publisher: marketplace publisher id '../..'" in message and "\u202e" not in message


def test_an_unknown_field_written_with_invisible_characters_is_named_escaped() -> None:
    message = refusal(**{"colour\u202e": "blue"})
    assert "colour\\u202e: unknown field" in message and "\u202e" not in message
