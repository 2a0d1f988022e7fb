"""PoolSpec validation: defaults, clear errors naming the field, templates checked as their machines' specs."""

from datetime import timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from models.arm_names import MACHINE_NAME
from models.durations import CHECK_BOUNDS
from models.naming import pool_machine_name, pool_workflow_id
from models.pool import POOL_SETTINGS, PoolSpec, template_revision
from models.validation import describe_validation_error
from tests.models.test_spec import spec_dict
from workflows.pool.inputs import SettingsRequest


def template(**overrides: Any) -> dict[str, Any]:
    spec = spec_dict()
    del spec["name"]
    return {**spec, **overrides}


def pool(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"name": "web", "resource_group": "rg", "replicas": 3, "template": template()}
    base.update(overrides)
    return base


def refusal(data: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as caught:
        PoolSpec.model_validate(data)
    return describe_validation_error(caught.value, "PoolSpec")


def test_defaults_are_mcms() -> None:
    spec = PoolSpec.model_validate(pool())
    assert (spec.strategy.max_surge, spec.strategy.max_unavailable) == (1, 0)
    assert (spec.max_replacements, spec.preserve_failed) == (1, 0)
    assert spec.preserve_timeout == timedelta(hours=96) and spec.min_ready == timedelta(0)


def test_a_machine_of_the_pool_gets_its_name_and_pool() -> None:
    spec = PoolSpec.model_validate(pool(min_ready="30s"))
    machine = spec.template.machine_spec("web-ab12c", spec.name)
    assert (machine.name, machine.pool, machine.resource_group) == ("web-ab12c", "web", "rg")
    assert machine.machine_tags()["azmc-pool"] == "web"
    assert spec.min_ready == timedelta(seconds=30)


def test_the_spec_round_trips_through_json_with_the_same_revision() -> None:
    spec = PoolSpec.model_validate(pool())
    again = PoolSpec.model_validate(spec.model_dump(mode="json"))
    assert again == spec and again.revision == spec.revision
    assert "name" not in spec.model_dump(mode="json")["template"]


def test_a_changed_template_is_a_new_revision_and_the_old_one_comes_back() -> None:
    spec = PoolSpec.model_validate(pool())
    bigger = spec.with_changes(CHECK_BOUNDS, template=template(vm_size="Standard_D4s_v3"))
    assert bigger.revision != spec.revision and len(bigger.revision) == 5
    assert bigger.with_changes(CHECK_BOUNDS, template=template()).revision == spec.revision
    assert template_revision(spec.template.as_input()) == spec.revision


@pytest.mark.parametrize(("overrides", "expected"), [
    ({"name": "Web_1"}, "name: pool name 'Web_1': lower-case letters, digits and '-'"),
    ({"name": "w" * 59}, f"name: pool name {'w' * 59!r}: must be 1-58 characters long"),
    ({"replicas": -1}, "replicas: Input should be greater than or equal to 0"),
    ({"max_replacements": -1}, "max_replacements: Input should be greater than or equal to 0"),
    ({"preserve_failed": -2}, "preserve_failed: Input should be greater than or equal to 0"),
    ({"preserve_timeout": "0s"}, "preserve_timeout: must be positive"),
    ({"strategy": {"max_surge": 0, "max_unavailable": 0}}, "strategy: max_surge and max_unavailable cannot both be 0"),
    ({"strategy": {"max_surge": -1}}, "strategy.max_surge: Input should be greater than or equal to 0"),
    ({"replicas": 1001}, "replicas: Input should be less than or equal to 1000"),
    ({"template": template(name="vm1")}, "template: name must not be set in a template"),
    ({"template": template(pool="other")}, "template: pool must not be set in a template"),
    ({"template": template(ssh_public_key="nope")}, "template.ssh_public_key: an OpenSSH public key"),
    ({"template": template(resource_group="elsewhere")},
     "template: resource_group 'elsewhere' differs from the pool's"),
    ({"surge": 2}, "surge: unknown field"),
])
def test_refusals_name_the_field(overrides: dict[str, Any], expected: str) -> None:
    assert expected in refusal(pool(**overrides))


def test_a_template_whose_derived_disk_names_azure_refuses_is_refused() -> None:
    disks = [{"name": "d" * 30, "lun": 1, "size_gb": 8}]
    message = refusal(pool(name="w" * 58, template=template(data_disks=disks)))
    assert "template: data_disks: derived disk name" in message and "1-80 characters" in message


def test_the_template_resource_group_defaults_to_the_pool_s() -> None:
    data = pool()
    del data["template"]["resource_group"]
    assert PoolSpec.model_validate(data).template.resource_group == "rg"


def test_machine_names_are_stable_unique_and_valid() -> None:
    names = {pool_machine_name("web", "b7c1e", counter) for counter in range(500)}
    assert len(names) == 500
    assert pool_machine_name("web", "b7c1e", 7) == pool_machine_name("web", "b7c1e", 7)
    assert pool_machine_name("web", "b7c1e", 7) != pool_machine_name("web", "0aa00", 7)
    longest = pool_machine_name("w" * 58, "b7c1e", 3)
    assert MACHINE_NAME.problem(longest) is None and len(longest) == 64
    assert pool_workflow_id("rg", "web") == "pool/rg/web"


@pytest.mark.parametrize(("value", "replicas", "limit"), [
    ("40%", 10, 4), ("40%", 3, 1), ("0%", 10, 0), ("100%", 7, 7), (0, 10, 0), (6, 10, 6), (" 25% ", 8, 2),
])
def test_max_unhealthy_is_a_count_or_a_share_rounded_down(value: Any, replicas: int, limit: int) -> None:
    assert PoolSpec.model_validate(pool(max_unhealthy=value, replicas=replicas)).unhealthy_limit() == limit


@pytest.mark.parametrize("value", ["140%", "-5%", "40", "forty%", -1, 1001, True, 2.5, None])
def test_a_max_unhealthy_that_is_neither_is_refused_naming_both_forms(value: Any) -> None:
    assert "max_unhealthy" in (said := refusal(pool(max_unhealthy=value))) and "40%" in said, said


def test_every_setting_a_pool_shows_can_be_changed_with_set_settings() -> None:
    assert set(POOL_SETTINGS) == set(SettingsRequest.model_fields)  # a new setting left out would be refused
