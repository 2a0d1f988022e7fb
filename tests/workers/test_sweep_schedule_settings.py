"""The fleet sweep's settings and the schedule they make (the schedule itself runs in tests/e2e)."""

from datetime import timedelta

import pytest
from temporalio.client import ScheduleOverlapPolicy

from models.sweep import SCHEDULE_ID, SWEEP_WORKFLOW, SweepInput
from workers.settings import SettingsError, load_settings
from workers.sweep_schedule import sweep_schedule


def test_defaults_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AZMC_SWEEP_INTERVAL", "AZMC_ORPHAN_GRACE", "AZMC_MAX_ORPHAN_DELETIONS", "AZMC_ENSURE_SCHEDULE"):
        monkeypatch.delenv(name, raising=False)
    settings = load_settings()
    assert (settings.sweep_interval, settings.orphan_grace, settings.max_orphan_deletions, settings.ensure_schedule) \
        == (timedelta(minutes=1), timedelta(minutes=30), 20, False)
    monkeypatch.setenv("AZMC_SWEEP_INTERVAL", "30s")
    monkeypatch.setenv("AZMC_ORPHAN_GRACE", "2h")
    monkeypatch.setenv("AZMC_ENSURE_SCHEDULE", "true")
    settings = load_settings(max_orphan_deletions=5)
    assert (settings.sweep_interval, settings.orphan_grace, settings.max_orphan_deletions, settings.ensure_schedule) \
        == (timedelta(seconds=30), timedelta(hours=2), 5, True)


@pytest.mark.parametrize(("field", "value"), [("sweep_interval", "0s"), ("orphan_grace", "soon"),
                                              ("max_orphan_deletions", "-1")])
def test_bad_values_are_one_line_errors_naming_the_env_var_or_the_flag(
    monkeypatch: pytest.MonkeyPatch, field: str, value: str,
) -> None:
    with pytest.raises(SettingsError, match=f"--{field.replace('_', '-')}"):
        load_settings(**{field: value})
    monkeypatch.setenv(f"AZMC_{field.upper()}", value)
    with pytest.raises(SettingsError, match=f"AZMC_{field.upper()}"):
        load_settings()


def test_the_schedule_runs_the_sweep_with_the_settings_and_never_overlaps() -> None:
    schedule = sweep_schedule(load_settings(sweep_interval="2m", orphan_grace="45m", max_orphan_deletions=7))
    assert schedule.action.workflow == SWEEP_WORKFLOW and schedule.action.id == SCHEDULE_ID
    assert schedule.action.args == [SweepInput(orphan_grace=timedelta(minutes=45), max_orphan_deletions=7)]
    assert schedule.spec.intervals[0].every == timedelta(minutes=2)
    assert schedule.policy.overlap == ScheduleOverlapPolicy.SKIP
