"""The `health` section refuses what could not work, naming the field; its defaults need no configuration."""

import pytest
from pydantic import ValidationError

from models.health import HealthSpec, RepairAction
from models.spec import MachineSpec
from tests.workflows.helpers import spec_dict


def _refused(health: dict) -> str:
    with pytest.raises(ValidationError) as caught:
        MachineSpec.model_validate(spec_dict(health=health), context={"check_duration_bounds": True})
    return str(caught.value)


def test_the_defaults_watch_azure_s_view_and_repair_in_three_steps() -> None:
    health = MachineSpec.model_validate(spec_dict()).health
    assert health.vm_agent and health.resource_health and health.probe is None
    assert [step.action for step in health.repair] == [RepairAction.RESTART, RepairAction.REDEPLOY,
                                                      RepairAction.RECREATE]


def test_a_step_is_a_name_or_an_action_with_its_wait() -> None:
    health = HealthSpec.model_validate({"repair": ["restart", {"action": "recreate", "wait": "20m"}]})
    assert [(s.action, s.wait.total_seconds()) for s in health.repair] == [("restart", 600), ("recreate", 1200)]


@pytest.mark.parametrize(("health", "named"), [
    ({"repair": ["restart", "reboot"]}, "health.repair.1"),
    ({"repair": ["restart", "restart"]}, "restart is listed twice"),
    ({"probe": {"tcp": {"port": 22}, "http": {"port": 80}}}, "exactly one of tcp or http"),
    ({"probe": {}}, "exactly one of tcp or http"),
    ({"probe": {"tcp": {"port": 0}}}, "health.probe.tcp.port"),
    ({"probe": {"http": {"port": 80, "path": "healthz"}}}, "health.probe.http.path"),
    ({"probe": {"tcp": {"port": 22}, "period": "10s", "timeout": "10s"}}, "must be shorter than period"),
    ({"probe": {"tcp": {"port": 22}, "period": "1s"}}, "health.probe.period"),
    ({"repair": [{"action": "restart", "wait": "0s"}]}, "below the minimum"),
    ({"probe": {"tcp": {"port": 22}, "failure_threshold": 0}}, "failure_threshold"),
])
def test_a_health_section_that_cannot_work_is_refused_naming_the_field(health: dict, named: str) -> None:
    assert named in _refused(health)
