"""Which spec changes a running machine takes in place (pure)."""

from models.spec import MachineSpec
from models.spec_changes import changed_fields, needs_new_vm, refusal, removed_tag_keys, tags_changed
from tests.workflows.helpers import spec_dict


def spec(**changes: object) -> MachineSpec:
    return MachineSpec.model_validate(spec_dict(**{"tags": {"team": "a", "cost": "1"}, **changes}))


def test_changed_fields_go_one_level_into_tags_timeouts_and_image() -> None:
    new = spec(tags={"team": "b", "env": "dev"}, timeouts={"health": "5m"},
               image={"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server", "version": "1.2"})
    assert changed_fields(spec(), new) == ["image.version", "tags.cost", "tags.env", "tags.team", "timeouts.health"]
    assert changed_fields(spec(), spec()) == []


def test_only_tags_pool_and_timeouts_change_in_place() -> None:
    changed = changed_fields(spec(), spec(pool="web", vm_size="Standard_D8s_v3", subnet_id=spec().subnet_id + "x"))
    assert needs_new_vm(changed) == ["vm_sizes", "subnet_id"]
    assert tags_changed(changed) and not tags_changed(["timeouts.health"])


def test_refusal_names_the_fields_and_what_to_do() -> None:
    reason = refusal(spec(), spec(vm_size="Standard_D8s_v3", zone="1"))
    assert reason.startswith("vm_sizes, zones cannot change on a running machine (vm_sizes: azmc does not resize")
    assert "azmc delete azmc-demo/vm1 --wait" in reason
    assert refusal(spec(), spec(tags={}, pool="web")) == ""
    assert "has its own workflow" in refusal(spec(), spec(name="vm2"))


def test_removed_tag_keys_are_the_ones_azmc_set_before() -> None:
    assert removed_tag_keys(spec(pool="web"), spec(tags={"Team": "b"}, pool="")) == ["azmc-pool", "cost"]
