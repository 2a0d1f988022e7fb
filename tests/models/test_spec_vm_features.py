"""Local checks of identity, gallery image ids, plan and accept_terms: each refusal names its field."""

import pytest
from pydantic import ValidationError

from emulator.seed import SEED_PLAN, seed_identity_id
from models.spec import MachineSpec
from tests.workflows.helpers import spec_dict

GALLERY = ("/subscriptions/00000000-0000-0000-0000-000000000001/resourceGroups/rg/providers/Microsoft.Compute/"
           "galleries/g/images/i/versions/1.0.0")


def error_fields(data: dict) -> list[str]:
    with pytest.raises(ValidationError) as caught:
        MachineSpec.model_validate(data)
    return [".".join(str(part) for part in error["loc"]) for error in caught.value.errors()]


@pytest.mark.parametrize(("overrides", "field"), [
    ({"identity": {"type": "UserAssigned"}}, "identity"),
    ({"identity": {"type": "SystemAssigned", "user_assigned_identities": [seed_identity_id()]}}, "identity"),
    ({"identity": {"type": "UserAssigned", "user_assigned_identities": ["/subscriptions/s/x"]}},
     "identity.user_assigned_identities"),
    ({"identity": {"type": "Everything"}}, "identity.type"),
    ({"image": {"id": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/disks/d"}}, "image.id"),
    ({"image": {"shared_gallery_image_id": GALLERY}}, "image.shared_gallery_image_id"),
    ({"image": {"community_gallery_image_id": "/SharedGalleries/g/Images/i"}}, "image.community_gallery_image_id"),
    ({"image": {"id": GALLERY, "shared_gallery_image_id": "/SharedGalleries/g/Images/i"}}, "image"),
    ({"plan": {"name": "p", "publisher": "x"}}, "plan.product"),
    ({"accept_terms": True}, ""),
])
def test_refusals_name_the_field(overrides: dict, field: str) -> None:
    assert field in error_fields(spec_dict(**overrides))


def test_the_fields_default_to_a_plain_machine() -> None:
    spec = MachineSpec.model_validate(spec_dict())
    assert (spec.identity, spec.plan, spec.accept_terms, spec.boot_diagnostics) == (None, None, False, False)


def test_valid_fields_are_accepted() -> None:
    spec = MachineSpec.model_validate(spec_dict(
        identity={"type": "SystemAssigned, UserAssigned", "user_assigned_identities": [seed_identity_id()]},
        image={"community_gallery_image_id": "/CommunityGalleries/c-1/Images/i/Versions/1.0.0"},
        plan=SEED_PLAN, accept_terms=True, boot_diagnostics=True))
    assert spec.identity is not None and spec.plan is not None and spec.plan.product == "azmc-offer"
