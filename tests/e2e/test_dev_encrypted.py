"""What a newcomer sees with `azmc dev`: a machine applied with `custom_data_file:` runs; its history, in
the dev server's SQLite file and in `temporal workflow show -o json`, holds no plaintext of the spec's
secrets, nor do azmc's logs; the codec server `azmc dev` runs (the UI's codec endpoint) decodes them; `azmc describe
--requests` reads the audit trail with the dev key; without the key `azmc describe` says which is missing."""

import base64
import json
import subprocess
import sys
from pathlib import Path

import yaml

from cli.processes import temporal_binary
from tests.e2e.stack import ROOT, DevRun, azmc_dev

TOKEN = "kubeadm join 10.1.0.4:6443 --token d3v0ps.n3wc0m3rs3cr3t"
SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDevStackSecretKeyMaterial you@example"
SECRETS = ("n3wc0m3rs3cr3t", "DevStackSecretKeyMaterial")


def _leaks(blob: bytes) -> list[str]:
    forms = {s: [s.encode()] + [base64.b64encode(s.encode()[i:])[4:-4] for i in range(3)] for s in SECRETS}
    return [s for s, found in forms.items() if any(f in blob for f in found)]


def test_dev_stack_history_is_encrypted_and_the_codec_server_reads_it(tmp_path: Path) -> None:
    spec = yaml.safe_load((ROOT / "examples" / "machine.yaml").read_text())
    (tmp_path / "boot").mkdir()
    (tmp_path / "boot" / "init.sh").write_text(f"#!/bin/sh\n{TOKEN}\n")
    (tmp_path / "vm.yaml").write_text(yaml.safe_dump({**spec, "name": "enc1", "ssh_public_key": SSH_KEY,
                                                      "custom_data_file": "boot/init.sh"}))
    with azmc_dev(tmp_path) as dev:
        _lifecycle_through_the_codec(dev, tmp_path)
    state, console = dev.state_dir, tmp_path / "console.txt"
    stored = b"".join(path.read_bytes() for path in sorted(state.glob("temporal.db*")))
    assert len(stored) > 100_000 and _leaks(stored) == []
    assert "Traceback" not in console.read_text()
    # azmc's own logs (the worker's go to the console under `azmc dev`, the codec server's to its file).
    logs = [console, *(path for path in state.glob("*.log") if path.name != "emulator.log")]
    assert [path.name for path in logs if _leaks(path.read_bytes())] == []


def _lifecycle_through_the_codec(dev: DevRun, tmp_path: Path) -> None:
    address, env = dev.address, dev.env()
    codec = f"http://127.0.0.1:{dev.ports['--codec-port']}"

    def run(*command: str) -> bytes:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()
        return done.stdout

    def temporal(*args: str) -> bytes:
        return run(temporal_binary(), *args, "--address", address)

    wf = "machine/azmc-demo/enc1"
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
