"""The worker's Azure settings reach the driver's configuration: the paces and force deletion an operator sets."""

import pytest

from models.pace import DEFAULT_ARM_PACES
from workers.settings import SettingsError, load_settings
from workers.worker import azure_config


def test_defaults_pace_arm_at_eighty_percent_and_force_delete(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AZMC_FORCE_DELETE_VMS", "AZMC_PACE_ARM_READS_PER_S"):
        monkeypatch.delenv(name, raising=False)
    config = azure_config(load_settings(azure_subscription_id="s"))
    assert config.force_delete_vms is True
    assert (config.arm_reads_per_s, config.arm_writes_per_s, config.arm_deletes_per_s) == (20.0, 8.0, 8.0)
    assert config.arm_reads_per_s == DEFAULT_ARM_PACES["reads"]


def test_an_operator_s_settings_reach_the_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZMC_FORCE_DELETE_VMS", "false")
    monkeypatch.setenv("AZMC_PACE_ARM_READS_PER_S", "12.5")
    config = azure_config(load_settings(azure_subscription_id="s"))
    assert config.force_delete_vms is False and config.arm_reads_per_s == 12.5


def test_a_pace_of_zero_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZMC_PACE_ARM_READS_PER_S", "0")
    with pytest.raises(SettingsError, match="AZMC_PACE_ARM_READS_PER_S"):
        load_settings()
