"""`azmc dev` starts Temporal (with the UI), the emulator and a worker; Ctrl-C stops all; busy ports are explained."""

import json
import shlex
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from cli.emulator_client import EmulatorControl
from cli.lifeline import ends_with_parent
from cli.processes import free_port, http_ok, port_is_free, tcp_open, temporal_binary
from tests.e2e.stack import PYTHONPATH, ROOT, azmc_dev, wait_until

PLAIN = {"payloads": [{"metadata": {"encoding": "anNvbi9wbGFpbg=="}, "data": "e30="}]}  # json/plain {}


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


FLAGS = ("--temporal-port", "--ui-port", "--emulator-port", "--metrics-port", "--codec-port")


def _dev(ports: dict[str, int], state_dir: Path) -> list[str]:
    argv = [sys.executable, "-m", "cli", "dev", "--state-dir", str(state_dir)]
    for flag, port in ports.items():
        argv += [flag, str(port)]
    return argv


def _metrics(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as answer:
        return answer.read().decode()


def test_dev_starts_everything_and_ctrl_c_stops_everything(tmp_path: Path) -> None:
    ports = {flag: free_port() for flag in FLAGS}
    console = tmp_path / "console.txt"
    env = {**PYTHONPATH, "PATH": "/usr/bin:/bin", "AZMC_SWEEP_INTERVAL": "2s"}
    with console.open("w") as out:
        argv = _dev(ports, tmp_path / ".azmc")
        process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   preexec_fn=ends_with_parent())
    try:
        wait_until(lambda: "Ctrl-C stops everything" in console.read_text(), 60, "the stack to be up")
        wait_until(lambda: http_ok(f"http://127.0.0.1:{ports['--metrics-port']}/metrics"), 30, "the worker's metrics")
        assert tcp_open(ports["--temporal-port"]) and http_ok(f"http://127.0.0.1:{ports['--ui-port']}/")
        assert EmulatorControl(f"http://127.0.0.1:{ports['--emulator-port']}").resources()  # seeded
        assert (tmp_path / ".azmc" / "temporal.db").is_file()
        # Encryption is on: a dev key only its owner reads, and the codec server the UI is pointed at.
        keys = tmp_path / ".azmc" / "codec-keys.json"
        assert keys.stat().st_mode & 0o777 == 0o600
        sealed = _post(f"http://127.0.0.1:{ports['--codec-port']}/encode", PLAIN)
        assert sealed["payloads"][0]["metadata"]["encryption-key-id"]
        assert f"AZMC_CODEC_KEYS_FILE={keys.resolve()}" in console.read_text()
        with urllib.request.urlopen(f"http://127.0.0.1:{ports['--ui-port']}/api/v1/settings", timeout=10) as ui:
            assert json.load(ui)["Codec"]["Endpoint"] == f"http://127.0.0.1:{ports['--codec-port']}"
        # The fleet sweep's schedule exists, and its runs' metrics are on the worker's endpoint.
        subprocess.run([temporal_binary(), "schedule", "describe", "--schedule-id", "azmc-fleet-sweep", "--address",
                        f"127.0.0.1:{ports['--temporal-port']}"], check=True, capture_output=True, timeout=30)
        wait_until(lambda: "azmc_sweep_runs" in _metrics(ports["--metrics-port"]), 60, "a fleet sweep's metrics")
        assert "azmc_sweep_machines_seen" in _metrics(ports["--metrics-port"])
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=60)
    output = console.read_text()
    assert process.returncode == 0, output
    assert "azmc dev" in output and f"http://localhost:{ports['--ui-port']}" in output and "stopping" in output
    assert "Traceback" not in output
    assert all(port_is_free(port) for port in ports.values())


def _printed_exports(console: str) -> dict[str, str]:
    """The `export NAME=value` lines `azmc dev` printed, as a shell reads them."""
    exports = {}
    for line in console.splitlines():
        if line.startswith("export "):
            name, _, value = line.removeprefix("export ").partition("=")
            exports[name] = " ".join(shlex.split(value))
    return exports


def test_another_terminal_with_the_printed_exports_reaches_this_stack(tmp_path: Path) -> None:
    """On ports that are not the defaults, `azmc` and `temporal` in a fresh environment holding only what
    `azmc dev` printed (and where to find azmc's code) use this stack's Temporal, codec key and emulator."""
    with azmc_dev(tmp_path) as dev:
        exports = _printed_exports((tmp_path / "console.txt").read_text())
        fresh = {**PYTHONPATH, "PATH": "/usr/bin:/bin", **exports}

        def run(*argv: str) -> str:
            done = subprocess.run(argv, cwd=ROOT, env=fresh, capture_output=True, text=True, timeout=120)
            assert done.returncode == 0, f"{argv}: {done.stdout}{done.stderr}"
            return done.stdout

        run(sys.executable, "-m", "cli", "apply", "-f", str(ROOT / "examples" / "machine.json"), "--wait")
        assert "Running" in run(sys.executable, "-m", "cli", "describe", "vm1")  # decoded with the dev key
        assert "vm1" in run(sys.executable, "-m", "cli", "get")
        decoded = run(temporal_binary(), "workflow", "query", "-w", "machine/azmc-demo/vm1", "--name", "status")
        assert "Running" in decoded  # the temporal CLI: this server, through this stack's codec server
        # It is this stack's: its own server, asked at its own port, and its own emulator hold the machine.
        listed = subprocess.run([temporal_binary(), "workflow", "list", "--address", dev.address, "-o", "json"],
                                capture_output=True, text=True, timeout=60, check=True).stdout
        assert "machine/azmc-demo/vm1" in listed
        emulator = EmulatorControl(f"http://127.0.0.1:{dev.ports['--emulator-port']}")
        assert any(r["name"] == "vm1" for r in emulator.resources())
        run(sys.executable, "-m", "cli", "delete", "vm1", "--wait")


def test_a_busy_port_is_one_line_naming_the_flag(tmp_path: Path) -> None:
    ports = {flag: free_port() for flag in FLAGS}
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", ports["--temporal-port"]))
        busy.listen()
        done = subprocess.run(_dev(ports, tmp_path), cwd=ROOT, env={**PYTHONPATH, "PATH": "/usr/bin:/bin"},
                              capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"port in use: {ports['--temporal-port']} (--temporal-port)" in lines[0]
