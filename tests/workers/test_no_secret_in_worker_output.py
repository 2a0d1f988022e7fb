"""A worker that cannot start says why in one line, and names none of its secrets (the Temporal API key,
the emulator token), whatever the log format."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
API_KEY = "temporal-api-key-never-shown"
AZURE_TOKEN = "emulator-token-never-shown"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("log_format", ["text", "json"])
def test_a_failing_worker_prints_no_secret(log_format: str) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("AZMC_")}
    env.update({"AZMC_TEMPORAL_API_KEY": API_KEY, "AZMC_AZURE_TOKEN": AZURE_TOKEN, "AZMC_LOG_FORMAT": log_format,
                "AZMC_AZURE_ENDPOINT": "http://127.0.0.1:9", "AZMC_METRICS_PORT": "0",
                "AZMC_TEMPORAL_ADDRESS": f"127.0.0.1:{_closed_port()}"})
    done = subprocess.run([sys.executable, "-m", "cli", "worker"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1 and "cannot reach Temporal" in done.stderr, done.stderr
    output = done.stdout + done.stderr
    assert API_KEY not in output and AZURE_TOKEN not in output
