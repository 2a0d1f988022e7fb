"""Which template changes a pool's machines take in place, and the spec each machine is sent (pure)."""

from typing import Any

from models.pool import PoolTemplate
from models.pool_in_place import in_place_changes, machine_spec_in_place, rotated
from models.pool_io import MachineInZone
from tests.workflows.helpers import SUBNET_ID
from tests.workflows.pools import template_dict


def _template(**changes: Any) -> PoolTemplate:
    return PoolTemplate.model_validate({**template_dict(SUBNET_ID), **changes})


def test_tags_and_timeouts_change_in_place_and_a_size_or_image_does_not() -> None:
    old = _template()
    assert in_place_changes(old, _template(tags={"team": "web"}, timeouts={"health": "15m"}), "web") == \
        ["tags.team", "timeouts.health"]
    assert in_place_changes(old, _template(tags={"team": "web"}, vm_size="Standard_D4s_v3"), "web") == []
    image = {"publisher": "Canonical", "offer": "ubuntu-24_04-lts", "sku": "server", "version": "24.04.2"}
    assert in_place_changes(old, _template(image=image), "web") == []
    assert in_place_changes(old, old, "web") == []  # nothing changed: nothing to apply


def test_a_machine_is_sent_the_template_in_its_own_zone_order() -> None:
    assert rotated(["1", "2", "3"], "2") == ["2", "3", "1"]
    assert rotated(["1", "2", "3"], "") == ["1", "2", "3"]  # regional, or a zone the template no longer has
    template = _template(zones=["1", "2", "3"], tags={"team": "web"})
    spec = machine_spec_in_place(template, "web", MachineInZone(name="web-abcde", zone="3"))
    assert (spec["name"], spec["pool"], spec["zones"], spec["tags"]) == ("web-abcde", "web", ["3", "1", "2"],
                                                                         {"team": "web"})
