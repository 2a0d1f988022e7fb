"""What a newcomer sees with `azmc dev`: a machine applied with `custom_data_file:` runs; its history, in
the dev server's SQLite file and in `temporal workflow show -o json`, holds no plaintext of the spec's
secrets, nor do azmc's logs; the codec server `azmc dev` runs (the UI's codec endpoint) decodes them; `azmc describe
--requests` reads the audit trail with the dev key; without the key `azmc describe` says which is missing."""

import base64
import json
import signal
import subprocess
import sys
from pathlib import Path

import yaml

from cli.processes import free_port, temporal_binary
from tests.e2e.stack import PYTHONPATH, ROOT, wait_until

TOKEN = "kubeadm join 10.1.0.4:6443 --token d3v0ps.n3wc0m3rs3cr3t"
SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDevStackSecretKeyMaterial you@example"
SECRETS = ("n3wc0m3rs3cr3t", "DevStackSecretKeyMaterial")


def _leaks(blob: bytes) -> list[str]:
    forms = {s: [s.encode()] + [base64.b64encode(s.encode()[i:])[4:-4] for i in range(3)] for s in SECRETS}
    return [s for s, found in forms.items() if any(f in blob for f in found)]


def test_dev_stack_history_is_encrypted_and_the_codec_server_reads_it(tmp_path: Path) -> None:
    ports = {flag: free_port() for flag in ("--temporal-port", "--ui-port", "--emulator-port", "--metrics-port",
                                            "--codec-port")}
    state = tmp_path / ".azmc"
    argv = [sys.executable, "-m", "cli", "dev", "--state-dir", str(state), "--time-scale", "0"]
    for flag, port in ports.items():
        argv += [flag, str(port)]
    console = tmp_path / "console.txt"
    with console.open("w") as out:
        dev = subprocess.Popen(argv, cwd=ROOT, env={**PYTHONPATH, "PATH": "/usr/bin:/bin"}, stdout=out,
                               stderr=subprocess.STDOUT)
    spec = yaml.safe_load((ROOT / "examples" / "machine.yaml").read_text())
    (tmp_path / "boot").mkdir()
    (tmp_path / "boot" / "init.sh").write_text(f"#!/bin/sh\n{TOKEN}\n")
    (tmp_path / "vm.yaml").write_text(yaml.safe_dump({**spec, "name": "enc1", "ssh_public_key": SSH_KEY,
                                                      "custom_data_file": "boot/init.sh"}))
    address = f"127.0.0.1:{ports['--temporal-port']}"
    codec = f"http://127.0.0.1:{ports['--codec-port']}"
    env = {**PYTHONPATH, "PATH": "/usr/bin:/bin", "AZMC_TEMPORAL_ADDRESS": address, "COLUMNS": "200",
           "AZMC_CODEC_KEYS_FILE": str(state / "codec-keys.json")}

    def run(*command: str) -> bytes:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout

    def temporal(*args: str) -> bytes:
        return run(temporal_binary(), *args, "--address", address)

    wf = "machine/azmc-demo/enc1"
    try:
        wait_until(lambda: "Ctrl-C stops everything" in console.read_text(), 90, "azmc dev to be up")
        run(sys.executable, "-m", "cli", "apply", "-f", str(tmp_path / "vm.yaml"), "--wait")
        status = json.loads(temporal("workflow", "query", "-w", wf, "--name", "status", "--codec-endpoint", codec,
                                     "-o", "json"))
        assert "Running" in json.dumps(status)
        assert b"Running" not in temporal("workflow", "query", "-w", wf, "--name", "status", "-o", "json")
        requests = json.loads(run(sys.executable, "-m", "cli", "describe", "enc1", "--requests", "--json"))
        assert any(r["operation"] == "virtualMachines.put" and r["request_id"]
                   for attempt in requests for r in attempt["requests"])
        keyless = subprocess.run([sys.executable, "-m", "cli", "describe", "enc1"], cwd=ROOT, capture_output=True,
                                 env={k: v for k, v in env.items() if k != "AZMC_CODEC_KEYS_FILE"}, text=True,
                                 timeout=60)
        assert keyless.returncode == 1 and "Traceback" not in keyless.stderr
        assert "payload encrypted with codec key 'dev-" in keyless.stderr and "(keys: none)" in keyless.stderr
        run(sys.executable, "-m", "cli", "delete", "enc1", "--wait")
        assert _leaks(temporal("workflow", "show", "-w", wf, "-o", "json")) == []
        assert _leaks(temporal("workflow", "show", "-w", wf, "-o", "json", "--codec-endpoint", codec)) == list(SECRETS)
    finally:
        dev.send_signal(signal.SIGINT)
        dev.wait(timeout=60)
    stored = b"".join(path.read_bytes() for path in sorted(state.glob("temporal.db*")))
    assert len(stored) > 100_000 and _leaks(stored) == []
    assert "Traceback" not in console.read_text()
    # azmc's own logs (the worker's go to the console under `azmc dev`, the codec server's to its file).
    logs = [console, *(path for path in state.glob("*.log") if path.name != "emulator.log")]
    assert [path.name for path in logs if _leaks(path.read_bytes())] == []
