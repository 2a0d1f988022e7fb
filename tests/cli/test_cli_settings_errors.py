"""Bad settings stop `azmc` with one readable line and a non-zero exit, never a stack trace."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.commands import app
from workers.settings import SettingsError, load_settings

ROOT = Path(__file__).parents[2]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("AZMC_"):
            monkeypatch.delenv(key)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_worker_without_subscription_for_real_azure() -> None:
    result = CliRunner().invoke(app, ["worker", "--temporal-address", f"127.0.0.1:{_closed_port()}"])
    assert result.exit_code == 1
    line = _one_line(result.stderr)
    assert "no Azure subscription" in line and "AZMC_AZURE_SUBSCRIPTION_ID" in line


def test_worker_with_unreachable_temporal_as_a_real_process() -> None:
    port = _closed_port()
    env = {**os.environ, "AZMC_AZURE_ENDPOINT": "http://127.0.0.1:9", "AZMC_METRICS_PORT": "0"}
    done = subprocess.run(
        [sys.executable, "-m", "cli", "worker", "--temporal-address", f"127.0.0.1:{port}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    line = _one_line(done.stderr)
    assert f"cannot reach Temporal at 127.0.0.1:{port}" in line and "azmc dev" in line


def test_client_commands_with_unreachable_temporal() -> None:
    address = f"127.0.0.1:{_closed_port()}"
    for command in (["get"], ["describe", "vm1"], ["delete", "vm1"]):
        result = CliRunner().invoke(app, [*command, "--temporal-address", address])
        assert result.exit_code == 1, command
        assert f"cannot reach Temporal at {address}" in _one_line(result.stderr)


def test_env_var_is_validated_with_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZMC_METRICS_PORT", "seventy")
    result = CliRunner().invoke(app, ["worker"])
    assert result.exit_code == 1
    assert "invalid AZMC_METRICS_PORT" in _one_line(result.stderr)


def test_half_an_mtls_pair_is_refused(tmp_path: Path) -> None:
    cert = tmp_path / "client.pem"
    cert.write_text("x")
    result = CliRunner().invoke(app, ["worker", "--tls-cert", str(cert)])
    assert result.exit_code == 1
    assert "AZMC_TEMPORAL_TLS_KEY" in _one_line(result.stderr)


def test_flags_override_env_and_secrets_stay_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZMC_TEMPORAL_ADDRESS", "from-env:7233")
    monkeypatch.setenv("AZMC_TEMPORAL_API_KEY", "very-secret-key")
    settings = load_settings(temporal_address="from-flag:7233", temporal_namespace=None)
    assert settings.temporal_address == "from-flag:7233"
    assert settings.uses_tls  # an API key implies TLS (Temporal Cloud)
    assert "very-secret-key" not in repr(settings) and "very-secret-key" not in str(settings.model_dump())


def test_emulator_mode_defaults_to_the_seed_subscription() -> None:
    settings = load_settings(azure_endpoint="http://127.0.0.1:8910")
    assert settings.subscription() == "00000000-0000-0000-0000-000000000000"
    assert settings.emulator_token()
    with pytest.raises(SettingsError, match="no Azure subscription"):
        load_settings().subscription()


def test_plain_http_to_a_non_loopback_azure_endpoint_is_refused() -> None:
    result = CliRunner().invoke(app, ["worker", "--azure-endpoint", "http://10.1.2.3:8910"])
    assert result.exit_code == 1
    line = _one_line(result.stderr)
    assert "--azure-endpoint" in line and "loopback" in line


def test_a_busy_metrics_port_is_one_line() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        argv = ["worker", "--azure-endpoint", "http://127.0.0.1:9", "--metrics-port", str(port)]
        result = CliRunner().invoke(app, argv)
    assert result.exit_code == 1
    line = _one_line(result.stderr)
    assert f"cannot serve metrics on 127.0.0.1:{port}" in line and "AZMC_METRICS_PORT" in line
