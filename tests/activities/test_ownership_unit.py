"""activities.ownership: the one rule that says whose a resource is, from its tags (pure)."""

import pytest

from activities.ownership import Owner, Ownership
from models.errors import ErrorType
from models.spec import MachineSpec
from tests.workflows.helpers import spec_dict

OURS = Owner("inst-a", "machine/azmc-demo/vm1", "vm1")


@pytest.mark.parametrize(("tags", "expected"), [
    ({"azmc-machine": "vm1", "azmc-owner": "inst-a/machine/azmc-demo/vm1"}, Ownership.OURS),
    ({"AZMC-Owner": "inst-a/machine/azmc-demo/vm1"}, Ownership.OURS),  # Azure tag names ignore case
    ({"azmc-machine": "vm1", "azmc-owner": "inst-b/machine/azmc-demo/vm1"}, Ownership.FOREIGN),  # other install
    ({"azmc-machine": "vm1", "azmc-owner": "inst-a/rogue/dup1"}, Ownership.FOREIGN),  # another workflow
    ({"azmc-machine": "vm1"}, Ownership.LEGACY),  # tagged by azmc before owner tags
    ({"azmc-machine": "vm10"}, Ownership.FOREIGN),  # another machine, legacy
    ({"team": "db"}, Ownership.UNTAGGED),
    (None, Ownership.UNTAGGED),
])
def test_classify(tags: dict[str, str] | None, expected: Ownership) -> None:
    assert OURS.classify(tags) == expected


def test_only_ours_and_legacy_may_be_used_untagged_only_when_allowed() -> None:
    assert OURS.may_use({"azmc-machine": "vm1"})
    assert not OURS.may_use({}) and OURS.may_use({}, untagged=True)
    assert not OURS.may_use({"azmc-owner": "inst-b/machine/azmc-demo/vm1"}, untagged=True)


def test_not_owned_names_both_owners_and_is_not_retryable() -> None:
    with pytest.raises(Exception) as info:
        OURS.require("VM", "vm1", {"azmc-machine": "vm1", "azmc-owner": "inst-b/machine/azmc-demo/vm1"})
    error = info.value
    assert getattr(error, "type", None) == ErrorType.NOT_OWNED and getattr(error, "non_retryable", False)
    assert "azmc-owner=inst-b/machine/azmc-demo/vm1" in str(error)
    assert "azmc-owner=inst-a/machine/azmc-demo/vm1" in str(error)


def test_tags_are_the_specs_plus_the_owner_and_claiming_keeps_what_was_there() -> None:
    spec = MachineSpec.model_validate(spec_dict(tags={"team": "infra"}, pool="web"))
    assert OURS.tags(spec) == {"team": "infra", "azmc-machine": "vm1", "azmc-pool": "web",
                               "azmc-owner": "inst-a/machine/azmc-demo/vm1"}
    assert OURS.claimed({"Azmc-Machine": "vm1", "cost": "7"}) == {
        "cost": "7", "azmc-machine": "vm1", "azmc-owner": "inst-a/machine/azmc-demo/vm1"}
