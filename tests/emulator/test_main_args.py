"""`python -m emulator` options map onto the start settings; only loopback addresses are accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.__main__ import parse_args
from emulator.seed import SEED_SUBSCRIPTION


def test_options_become_start_settings(tmp_path: Path) -> None:
    config = parse_args(["--port", "9999", "--time-scale", "0.5", "--latency-profile", "realistic", "--seed",
                         "--throttling", "--limits", "azure", "--index-lag", "7", "--boot-seconds", "45",
                         "--faults", str(tmp_path / "f.json")])
    assert (config.host, config.port, config.seed, config.subscription) == ("127.0.0.1", 9999, True, SEED_SUBSCRIPTION)
    assert config.start.as_dict() == {"time_scale": 0.5, "throttling": True, "limits": "azure",
                                      "limits_overrides": {}, "index_lag_s": 7.0,
                                      "latency_profile": "realistic", "page_size": 1000,
                                      "boot_seconds": 45.0}
    assert config.faults_file == tmp_path / "f.json"


@pytest.mark.parametrize("host", ["::1", "localhost", "127.0.0.2"])
def test_loopback_hosts_are_accepted(host: str) -> None:
    assert parse_args(["--host", host]).host == host


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "example.com"])
def test_other_hosts_are_refused(host: str) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--host", host])
